// What `npm start` runs once tools/start.mjs has checked PostgreSQL, Redis and RabbitMQ and built
// everything (this file's bundle is dist/tools/stack/main.cjs): the six services in the foreground
// (foreground.ts), in the environment as given. Prints the addresses of the API and the clinic
// inbox once every service is ready.
import { paint, runInForeground } from './foreground';

void runInForeground({
  label: 'start',
  onReady: async (stack, say) => {
    say(paint(1, `Bed Occupancy Request Service is ready at ${stack.gatewayUrl}`));
    say(paint(1, `The clinic inbox is at ${stack.webUrl}/inbox/`));
    say(`try: curl ${stack.gatewayUrl}/api/v1/token/status   (Ctrl-C stops everything)`);
  },
});

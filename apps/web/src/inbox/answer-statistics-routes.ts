import { Router } from 'express';
import { apiCallOf, clinicIkOf, pageContextOf, sendPage, type InboxContext } from './inbox-context';
import { answerStatisticsPage } from './pages/answer-statistics.page';

/** `GET /inbox/statistics`: the clinic's own answer figures beside its peers' median (docs/inbox.md, "Statistik"). */
export function answerStatisticsRoutes(context: InboxContext): Router {
  const router = Router();
  router.get('/statistics', async (req, res) => {
    const call = apiCallOf(req, res);
    const [page, statistics, clinic] = await Promise.all([
      pageContextOf(context, req, res),
      context.api.answerStatisticsFor(call).own(),
      context.clinics.find(clinicIkOf(res), call),
    ]);
    const departmentName = (code: string) => clinic?.departments.find((department) => department.code === code)?.display ?? code;
    sendPage(res, answerStatisticsPage(page, { statistics, departmentName }));
  });
  return router;
}

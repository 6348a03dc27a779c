export { UsageError, option, type Option, type RequiredOption } from './options';
export {
  CommandLine,
  EXIT_CODE,
  command,
  type Command,
  type CommandContext,
  type CommandLineDefinition,
  type CommandLineIo,
  type Invocation,
  type OptionValues,
  type Options,
  type Session,
} from './command-line';

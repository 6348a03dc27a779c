/**
 * The short number a clerk quotes on the phone (docs/inbox.md, "Anfragen"): the first eight
 * characters of the Task's id, in two groups of four, upper-case ("3F9A-12C0"). The referrer reads the
 * same Task id, so both sides find the request by it; the list's search takes it with or without
 * the hyphen.
 */
export function requestNumberOf(taskId: string): string {
  const head = taskId.replace(/-/g, '').slice(0, 8).toUpperCase();
  return `${head.slice(0, 4)}-${head.slice(4)}`;
}

/** The Task id's leading hex digits a typed request number names, lower-case; undefined when it is not one. */
export function taskIdPrefixOf(typed: string): string | undefined {
  const digits = typed.trim().replace(/[\s-]/g, '').toLowerCase();
  return /^[0-9a-f]{4,8}$/.test(digits) ? digits : undefined;
}

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The PromQL of deploy/monitoring (the alert rules and the Grafana dashboard), and the metric
 * families it names, so that a test can hold them against what the services export.
 */

/** The words of PromQL that stand where a metric name could: binary operators, modifiers, literals. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'group_left', 'group_right', 'inf', 'nan']);

/**
 * The metric names an expression selects, in order of first use. Once the string literals, the label
 * matchers (`{…}`), the ranges and subqueries (`[…]`) and the grouping label lists (`by (…)`,
 * `on (…)`, …) are blanked out, every identifier left is a metric name, a function or aggregation
 * (followed by `(`) or a keyword.
 */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = [...bare.matchAll(/(?<![\w:.$])([a-zA-Z_:][\w:]*)(?!\s*\()(?![\w:])/g)].map((match) => match[1]!);
  return [...new Set(names.filter((name) => !KEYWORDS.has(name.toLowerCase())))];
}

/** A histogram's series (`_bucket`, `_sum`, `_count`) belong to the family named without the suffix. */
export function metricFamilyOf(name: string): string {
  return name.replace(/_(?:bucket|sum|count)$/, '');
}

interface RuleFile {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}

/** Every expression of a Prometheus rule file, by the alert (or recording rule) it belongs to. */
export function ruleExpressions(path: string): { name: string; expr: string }[] {
  const rules = parse(readFileSync(path, 'utf8')) as RuleFile;
  return rules.groups.flatMap((group) => group.rules.map((rule) => ({ name: rule.alert ?? rule.record ?? group.name, expr: rule.expr })));
}

interface DashboardPanel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: DashboardPanel[];
}

interface Dashboard {
  panels?: DashboardPanel[];
  templating?: { list?: { name: string; type: string; query?: string | { query?: string } }[] };
}

/**
 * Every PromQL expression of a Grafana dashboard's JSON model: the panels' targets (rows' nested
 * panels too) and the query variables. A variable's `label_values(<selector>, <label>)` is Grafana's,
 * not PromQL; its selector is.
 */
export function dashboardExpressions(path: string): { name: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(path, 'utf8')) as Dashboard;
  const fromPanels = (panels: DashboardPanel[] = []): { name: string; expr: string }[] =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? []).flatMap((target) => (target.expr ? [{ name: panel.title ?? '(untitled)', expr: target.expr }] : [])),
      ...fromPanels(panel.panels),
    ]);
  const fromVariables = (dashboard.templating?.list ?? [])
    .filter((variable) => variable.type === 'query')
    .map((variable) => {
      const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
      const labelValues = /^\s*label_values\((.*),\s*[a-zA-Z_]\w*\s*\)\s*$/s.exec(query);
      return { name: `$${variable.name}`, expr: labelValues ? labelValues[1]! : query };
    });
  return [...fromPanels(dashboard.panels), ...fromVariables];
}

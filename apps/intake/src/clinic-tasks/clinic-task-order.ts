import { z } from 'zod';
import { TASK_STATUSES_OF_LIST_STATE, TaskListState } from '@bedrequest/contracts';
import { Prisma } from '../generated/prisma/client';
import { CursorInstant, Keyset } from '../search';
import type { SummaryRow } from './clinic-task-summary';

/**
 * The list's orders (`_sort`, docs/api.md "Clinic API"): by the desired admission date, by arrival
 * (the Task's authoredOn), by list state, by answer deadline (docs/api.md, "Answer deadlines": Tasks
 * without one last both ways); without `_sort`, open first, then the most recently changed.
 */
export const LIST_SORTS = ['occurrence', '-occurrence', 'authored', '-authored', 'status', 'deadline', '-deadline'] as const;
export type ListSort = (typeof LIST_SORTS)[number];

/** The orders SQL can follow on the Task's own columns; the admission date is sealed (docs/data-protection.md). */
export type SqlSort = Exclude<ListSort, 'occurrence' | '-occurrence'> | 'default';

/** A row's place in its order: what the cursor of the page after it holds. */
export type OrderKey = readonly unknown[];

/**
 * One order of the Task table: its columns (each over `t`, then `t.id`), all one way, so that a
 * cursor is one row comparison, and the casts of the cursor's values.
 */
interface SqlOrder {
  columns: Prisma.Sql[];
  casts: string[];
  descending: boolean;
  keys: Keyset<OrderKey>;
  /** The cursor's values of a row: the order's name first (but for the default's, which cursors of earlier releases hold), then the columns, then the id. */
  keyOf(row: SummaryRow): OrderKey;
}

/** A list state's place in the tabs' order (new, answered, selected, cancelled). */
export function stateRankOf(status: string): number {
  const index = TaskListState.options.findIndex((state) => (TASK_STATUSES_OF_LIST_STATE[state] as readonly string[]).includes(status));
  return index < 0 ? TaskListState.options.length : index;
}

const rankSql = Prisma.sql`(CASE ${Prisma.join(
  TaskListState.options.flatMap((state, index) => TASK_STATUSES_OF_LIST_STATE[state].map((status) => Prisma.sql`WHEN t.status = ${status} THEN ${index}::int`)),
  ' ',
)} ELSE ${TaskListState.options.length}::int END)`;
const LAST_RANK = TaskListState.options.length;
/** What the deadline orders' second column holds for a Task without a deadline (their first column already placed it). */
const NO_DEADLINE = '1970-01-01T00:00:00.000Z';

export const SQL_ORDERS: Record<SqlSort, SqlOrder> = {
  default: {
    columns: [Prisma.sql`(t.status = 'requested')`, Prisma.sql`t.last_modified`],
    casts: ['boolean', 'timestamptz'],
    descending: true,
    keys: new Keyset<OrderKey>(z.tuple([z.boolean(), CursorInstant, z.guid()])),
    keyOf: (row) => [row.status === 'requested', row.last_modified.toISOString(), row.id],
  },
  // The tabs' order, each state's most recently changed first: the rank turned around, so that every column descends.
  status: {
    columns: [Prisma.sql`(${LAST_RANK}::int - ${rankSql})`, Prisma.sql`t.last_modified`],
    casts: ['int', 'timestamptz'],
    descending: true,
    keys: new Keyset<OrderKey>(z.tuple([z.literal('status'), z.number().int().min(0).max(LAST_RANK), CursorInstant, z.guid()])),
    keyOf: (row) => ['status', LAST_RANK - stateRankOf(row.status), row.last_modified.toISOString(), row.id],
  },
  authored: {
    columns: [Prisma.sql`t.authored_on`],
    casts: ['timestamptz'],
    descending: false,
    keys: new Keyset<OrderKey>(z.tuple([z.literal('authored'), CursorInstant, z.guid()])),
    keyOf: (row) => ['authored', row.authored_on.toISOString(), row.id],
  },
  '-authored': {
    columns: [Prisma.sql`t.authored_on`],
    casts: ['timestamptz'],
    descending: true,
    keys: new Keyset<OrderKey>(z.tuple([z.literal('-authored'), CursorInstant, z.guid()])),
    keyOf: (row) => ['-authored', row.authored_on.toISOString(), row.id],
  },
  // Tasks without a deadline last both ways: the first column puts them there (false before true
  // ascending, true before false descending), the second, never null, orders the others.
  deadline: {
    columns: [Prisma.sql`(t.answer_deadline IS NULL)`, Prisma.sql`coalesce(t.answer_deadline, ${NO_DEADLINE}::timestamptz)`],
    casts: ['boolean', 'timestamptz'],
    descending: false,
    keys: new Keyset<OrderKey>(z.tuple([z.literal('deadline'), z.boolean(), CursorInstant, z.guid()])),
    keyOf: (row) => ['deadline', !row.answer_deadline, (row.answer_deadline ?? new Date(NO_DEADLINE)).toISOString(), row.id],
  },
  '-deadline': {
    columns: [Prisma.sql`(t.answer_deadline IS NOT NULL)`, Prisma.sql`coalesce(t.answer_deadline, ${NO_DEADLINE}::timestamptz)`],
    casts: ['boolean', 'timestamptz'],
    descending: true,
    keys: new Keyset<OrderKey>(z.tuple([z.literal('-deadline'), z.boolean(), CursorInstant, z.guid()])),
    keyOf: (row) => ['-deadline', !!row.answer_deadline, (row.answer_deadline ?? new Date(NO_DEADLINE)).toISOString(), row.id],
  },
};

export function sqlSortOf(sort: ListSort | undefined): SqlSort | undefined {
  if (sort === 'occurrence' || sort === '-occurrence') return undefined;
  return sort ?? 'default';
}

/** `ORDER BY` of the order over the columns `k0, k1, …` and `id` (of `alias`, or the statement's own output columns). */
export function orderBySql(order: SqlOrder, alias?: string): Prisma.Sql {
  const direction = order.descending ? 'DESC' : 'ASC';
  const prefix = alias ? `${alias}.` : '';
  return Prisma.raw([...order.columns.map((_, index) => `${prefix}k${index}`), `${prefix}id`].map((column) => `${column} ${direction}`).join(', '));
}

/** The order's columns as `k0, k1, …`, for the page's statement. */
export function keyColumnsSql(order: SqlOrder): Prisma.Sql {
  return Prisma.join(
    order.columns.map((column, index) => Prisma.sql`${column} AS ${Prisma.raw(`k${index}`)}`),
    ', ',
  );
}

/** The rows after the cursor's row in the order (its values after the order's name). */
export function afterSql(order: SqlOrder, key: OrderKey): Prisma.Sql {
  const values = key.slice(key.length - order.columns.length - 1);
  const cast = (value: unknown, type: string) => Prisma.sql`${value}::${Prisma.raw(type)}`;
  const left = Prisma.join([...order.columns, Prisma.sql`t.id`], ', ');
  const right = Prisma.join([...order.casts.map((type, index) => cast(values[index], type)), cast(values.at(-1), 'uuid')], ', ');
  return order.descending ? Prisma.sql`(${left}) < (${right})` : Prisma.sql`(${left}) > (${right})`;
}

const byId = (a: SummaryRow, b: SummaryRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byTime = (a: Date, b: Date) => a.getTime() - b.getTime();

/**
 * The same orders over rows in memory, for a list sorted by the admission date (sealed in the
 * summary) or searched by text (docs/api.md, "Clinic API"): a negative number when `a` comes first.
 * A row without an admission date comes last both ways.
 */
export function compareRows(sort: ListSort | undefined): (a: SummaryRow, b: SummaryRow) => number {
  switch (sort) {
    case 'occurrence':
    case '-occurrence': {
      const sign = sort === 'occurrence' ? 1 : -1;
      return (a, b) => {
        const [x, y] = [a.occurrence_date?.slice(0, 10), b.occurrence_date?.slice(0, 10)];
        if (x !== y) return !x ? 1 : !y ? -1 : sign * (x < y ? -1 : 1);
        return sign * byId(a, b);
      };
    }
    case 'authored':
      return (a, b) => byTime(a.authored_on, b.authored_on) || byId(a, b);
    case '-authored':
      return (a, b) => byTime(b.authored_on, a.authored_on) || byId(b, a);
    case 'deadline':
    case '-deadline': {
      const sign = sort === 'deadline' ? 1 : -1;
      return (a, b) => {
        const [x, y] = [a.answer_deadline?.getTime(), b.answer_deadline?.getTime()];
        if (x !== y) return x === undefined ? 1 : y === undefined ? -1 : sign * (x - y);
        return sign * byId(a, b);
      };
    }
    case 'status':
      return (a, b) => stateRankOf(a.status) - stateRankOf(b.status) || byTime(b.last_modified, a.last_modified) || byId(b, a);
    default:
      return (a, b) => Number(b.status === 'requested') - Number(a.status === 'requested') || byTime(b.last_modified, a.last_modified) || byId(b, a);
  }
}

export { MAX_PAGE_BYTES, pageOf, PageQuery, VersionPageQuery, type Page } from './pages';
export {
  CursorInstant,
  DEFAULT_PAGE_SIZE,
  Keyset,
  MAX_OFFSET,
  MAX_PAGE_SIZE,
  nextPosition,
  pageQueryString,
  pagingConflict,
  pagingParameters,
  positionOf,
  type Paging,
  type Position,
} from './paging';
export { admits, DATE_SYNTAX, instantIn, parseDateCondition, type DatePrefix, type InstantRange } from './search-date';
export {
  dateParameter,
  isJsonFormat,
  quoted,
  readQuery,
  refusal,
  requestIdentifierParameter,
  splitToken,
  type Parameter,
  type ParameterHandler,
  type QueryRefusal,
} from './search-query';

export {
  DATA_KEY_BYTES,
  MalformedSealedValueError,
  SEALED_FORMAT_VERSION,
  SEALED_OVERHEAD_BYTES,
  SealedValueRejectedError,
  dataKeyIdOf,
  openWith,
  sealWith,
  uuidBytes,
  type DataKey,
} from './sealed-value';
export {
  DataKeyUnavailableError,
  KEK_BYTES,
  KeyEncryptionKeys,
  kekIdOf,
  keyEncryptionKey,
  type KeyEncryptionKey,
  type WrappedKeyTable,
} from './key-encryption-keys';
export {
  FINGERPRINT_KEY_TABLE_SQL,
  KEY_TABLES_SQL,
  SqlKeyStore,
  type DataKeyStore,
  type DevelopmentKekStore,
  type FingerprintKeyStore,
  type SqlClient,
  type WrappedDataKey,
} from './key-store';
export { DATA_KEY_REFRESH_INTERVAL_MS, DataKeyring, type UnavailableDataKey } from './data-keyring';
export { KeyConfigError, keyEncryptionKeysOf, openDataKeyring, startDataKeyring, type DataKeyConfig, type DataKeyLogger } from './from-config';
export { FingerprintKey } from './fingerprint';
export { type Progress } from './progress';
export { reencryptColumn, rewrapDataKeys, rewrapFingerprintKey, type ResealedRow, type SealedColumn, type StaleRow } from './rotation';
export { SqlSealedColumn, type SqlSealedColumnOptions } from './sql-sealed-column';
export { describeFingerprintKey, describeKeys, type CountedColumn } from './key-status';
export { dataKeyCommands, type ServiceDataKeys } from './key-commands';

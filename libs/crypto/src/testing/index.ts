export { MemoryKeyStore, kekSet, newKek } from './memory-key-store';

export { ANY_ROLE, accessTokenOf, principalOf, type Principal, type Role } from '@bedrequest/tokens';

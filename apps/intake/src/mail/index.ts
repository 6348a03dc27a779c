export { MailOutboxRepository, type DueMail, type MailResult } from './mail-outbox.repository';
export { AuthRecipientDirectory, type RecipientDirectory } from './mail-recipients';
export { MailSender, type MailSenderOptions } from './mail-sender';
export { mailTextOf, pageOf, shortReferenceOf, type MailKind } from './mail-text';
export { domainOf, smtpTransport, type MailTransport, type OutgoingMail } from './smtp-transport';

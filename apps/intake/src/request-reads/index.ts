export { requestReadRouter } from './request-read.router';
export { RequestReadService, type RequestRead } from './request-read.service';

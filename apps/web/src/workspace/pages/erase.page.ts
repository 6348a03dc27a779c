import type { Html } from '../../inbox/html';
import type { PageContext } from '../../inbox/pages/layout';
import type { WorkspaceTexts } from '../workspace.texts.de';
import { confirmPage } from './confirm.page';

/** The confirmation of an erasure (docs/workspace.md, "Patientendaten löschen"): what goes, what stays, one button. */
export function erasePage(context: PageContext, texts: WorkspaceTexts, placementId: string, csrfToken: string): Html {
  const t = texts.hospital.erase;
  return confirmPage(
    context,
    texts,
    placementId,
    { title: t.title, intro: t.intro, effects: t.goes, closing: t.stays, confirm: t.confirm, action: `/workspace/requests/${placementId}/erase` },
    csrfToken,
  );
}

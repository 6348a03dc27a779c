import type { ApiCall, InboxApi } from './inbox-api';

/**
 * Whether a clinic's automatic answers are on, for the banner every page shows while they are
 * (docs/inbox.md, "Betten"). Kept for a few seconds per clinic, so that a page view does not wait for
 * routing each time; a switch on this process's beds page is remembered at once, one on another
 * process shows within those seconds.
 */
export class AutomaticAnswersSetting {
  private readonly byIk = new Map<string, { at: number; enabled: boolean | undefined }>();

  constructor(
    private readonly api: InboxApi,
    private readonly maxAgeMs = 15_000,
  ) {}

  async enabled(ik: string, call: ApiCall): Promise<boolean | undefined> {
    const known = this.byIk.get(ik);
    if (known && Date.now() - known.at <= this.maxAgeMs) return known.enabled;
    // Unknown (routing not answering) shows no banner rather than failing the page.
    const enabled = await this.api
      .capacityFor(call)
      .automaticAnswers()
      .catch(() => undefined);
    this.remember(ik, enabled);
    return enabled;
  }

  remember(ik: string, enabled: boolean | undefined): void {
    this.byIk.set(ik, { at: Date.now(), enabled });
  }
}

// The order test files start in. Vitest runs the longest first when it has timings of an earlier run;
// a clean clone (CI) has none, and then it goes by file size — which put the soak slice (a 12-line file
// of ~40 s) and the e2e files last, alone at the tail. Here the files that are long go first — the e2e
// lane (the real agent CLIs), the soak, the renewal file (a 30 s TTL outlived in real time) and the
// stats scenario (~50 tasks across three seats, in a file of a few lines) — and
// otherwise vitest's own order stands.
import { BaseSequencer, type TestSpecification } from "vitest/node";

const LONG_FIRST = [/\/test\/e2e\//, /\/test\/soak\//, /\/test\/integration\/renewal\.test\.ts$/, /\/test\/integration\/stats\.test\.ts$/];

export default class LongLanesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((re) => re.test(f.moduleId));
      return i === -1 ? LONG_FIRST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

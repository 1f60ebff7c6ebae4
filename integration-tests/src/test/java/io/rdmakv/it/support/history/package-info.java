/**
 * Recorded histories and their linearizability check: {@link io.rdmakv.it.support.history.HistoryRecorder} (what
 * clients invoked and how each call ended, on one monotonic clock) and
 * {@link io.rdmakv.it.support.history.LinearizabilityChecker} (a register per key, searched with Wing and Gong's
 * algorithm as Lowe and Porcupine refine it, with the first anomaly named: stale read, lost write, value never
 * written). The register also takes the conditional writes and the counter of issue 32 (putIfAbsent, replace and
 * delete at a version, recorded as conditions on the value the version names, and increment with the value it
 * answered; {@link io.rdmakv.it.support.history.CasWorkload}). The fault tests record every operation here and assert
 * the report; Jepsen and Knossos are not reachable
 * from this build, so the search is the project's own, tested on hand-written good and bad histories.
 *
 * <p>Depends on nothing of rdmakv: values are strings the caller chooses (unique per PUT for the sharpest reports).
 */
package io.rdmakv.it.support.history;

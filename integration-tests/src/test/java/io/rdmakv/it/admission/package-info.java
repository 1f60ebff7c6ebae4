/**
 * Admission under hostile load, against real server processes: idle unauthenticated connections on both ports
 * (budget, shedding the oldest, per-source bound, deadline), guessing of the credential (throttle), and floods of
 * malformed input (bounded log lines).
 */
package io.rdmakv.it.admission;

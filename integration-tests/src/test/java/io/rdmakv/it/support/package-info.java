/**
 * Shared machinery of the end-to-end tests: {@link io.rdmakv.it.support.ServerProcess} (a server as a separate OS
 * process, with READY parsing, SIGKILL/SIGTERM and restart), {@link io.rdmakv.it.support.ProcessJanitor} (no child
 * outlives its test), {@link io.rdmakv.it.support.SelfCheckingValue} (values that prove their own key and integrity)
 * and {@link io.rdmakv.it.support.TestScale} (short by default, long under {@code -Psoak}).
 *
 * <p>Must never depend on the server's internals: servers are driven only through their process boundary, their
 * sockets and the public client; this package must stay usable against any build of the server.
 */
package io.rdmakv.it.support;

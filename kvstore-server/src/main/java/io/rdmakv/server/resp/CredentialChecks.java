package io.rdmakv.server.resp;

import io.rdmakv.protocol.auth.ScramCredential;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The password checks of RESP's {@code AUTH user password} (and {@code HELLO ... AUTH}), off the event loop: each is
 * a PBKDF2 of the user's iteration count (4,096 by default: tens of milliseconds), which on the loop stalled every
 * connection of the node for as long, a login at a time. Two daemon threads at most, started on demand; a connection
 * has at most one check in flight (it executes nothing after its AUTH until the answer, {@link RespConnection}), so
 * the queue is bounded by the node's connections, and failed logins by the per-source throttle before any work.
 */
final class CredentialChecks
{
    private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r ->
        {
            final Thread t = new Thread(r, "rdmakv-resp-login");
            t.setDaemon(true);
            return t;
        });
    /** Tests: checks wait for this latch before they start (null: they do not wait). */
    static volatile CountDownLatch testGate;

    static
    {
        POOL.allowCoreThreadTimeOut(true);
    }

    private CredentialChecks()
    {
    }

    /** Whether {@code password} matches {@code credential}, decided on a pool thread; {@code password} is wiped. */
    static CompletableFuture<Boolean> check(final ScramCredential credential, final char[] password)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                final CountDownLatch gate = testGate;
                if (gate != null)
                {
                    gate.await();
                }
                return credential.matches(password);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
            finally
            {
                Arrays.fill(password, '\0');
            }
        }, POOL);
    }
}

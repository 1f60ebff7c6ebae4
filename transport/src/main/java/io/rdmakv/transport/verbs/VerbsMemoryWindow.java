package io.rdmakv.transport.verbs;

import io.rdmakv.transport.MemoryWindow;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.verbs.ffi.SendWorkRequests;
import com.sun.jna.Pointer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.MW_RKEY;

/**
 * A type 2 memory window ({@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}) bound on one endpoint's QP
 * ({@link VerbsEndpoint#bindWindow}). Its key is the window's allocated rkey with the consumer byte incremented
 * ({@code ibv_inc_rkey}), the value the bind work request carries: a key from before the bind, or one guessed from
 * the region's, names nothing. Type 2 windows are checked against the QP the read arrives on, so the key is useless
 * to anyone but this endpoint's peer, and over any other connection.
 *
 * <p>Revocation: {@link #invalidate()} posts {@code IBV_WR_LOCAL_INV} on the same QP (ordered after everything posted
 * before it); {@link #close()} deallocates the window ({@code ibv_dealloc_mw}), which invalidates it at once, whatever
 * the endpoint's state. A peer's read with the key afterwards is refused by the device with a remote access error:
 * {@link TransportStatus#INVALID_RKEY} for that read, and the end of that RC connection (both sides), as for a
 * deregistered region; the worker and its other endpoints are not affected.
 */
final class VerbsMemoryWindow implements MemoryWindow
{
    private final VerbsEndpoint endpoint;
    private final VerbsDevice device;
    final long mw;
    final long mr;
    final long address;
    final long length;
    final int rkey;
    private final RemoteKey remoteKey;
    private final AtomicBoolean closed = new AtomicBoolean();

    VerbsMemoryWindow(final VerbsEndpoint endpoint, final VerbsDevice device, final long mw, final long mr,
        final long address, final long length)
    {
        this.endpoint = endpoint;
        this.device = device;
        this.mw = mw;
        this.mr = mr;
        this.address = address;
        this.length = length;
        final Pointer window = new Pointer(mw);
        this.rkey = SendWorkRequests.incrementRkey(window.getInt(MW_RKEY));
        this.remoteKey = new RemoteKey(RemoteKey.TRANSPORT_VERBS, rkey, address, length, 0);
    }

    @Override
    public RemoteKey remoteKey()
    {
        return remoteKey;
    }

    @Override
    public CompletableFuture<Void> invalidate()
    {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        if (closed.get())
        {
            done.complete(null); // deallocated: nothing left to revoke
            return done;
        }
        final TransportStatus refused = endpoint.postWindowOp(this, false, (status, id) ->
        {
            if (status == TransportStatus.OK)
            {
                done.complete(null);
            }
            else
            {
                done.completeExceptionally(new TransportException(status, "memory window invalidation failed: " +
                    status.description() + " (close the window to revoke it)", null));
            }
        });
        if (refused != null)
        {
            done.completeExceptionally(new TransportException(refused, "memory window invalidation not posted: " +
                refused.description() + " (close the window to revoke it)", null));
        }
        return done;
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        endpoint.windowClosed(this);
        if (device.isClosed())
        {
            return; // the device's close released every window with its context
        }
        final int rc = device.ops.deallocMw(mw);
        if (rc != 0)
        {
            throw new TransportException("ibv_dealloc_mw failed: rc " + rc);
        }
    }

    @Override
    public String toString()
    {
        return "VerbsMemoryWindow{" + remoteKey + ", " + endpoint + '}';
    }
}

package io.rdmakv.transport.tcp;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.concurrent.Future;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerWakeup;
import org.agrona.ErrorHandler;

import java.util.ArrayList;
import java.util.List;

/**
 * An ARMABLE worker of another transport (a shm worker) progressed on a tcp worker's event loop, so its callbacks
 * run on the loop's thread with the tcp endpoints' (one request thread, no hand-off between threads). The loop
 * watches the guest's wake-up descriptors ({@link WorkerWakeup#hostedFds()}: the eventfd its peers write when they
 * find it parked, and the epoll set of its sockets) as Netty {@link EpollIoHandle}s, and polls the guest at every
 * loop decision and duty cycle ({@link TcpSpinSelectStrategy.Guests}):
 * <pre>
 *   loop decision:   guest.doWork()                      (its rings; callbacks inline)
 *   before blocking: wakeup.arm(); guest.doWork()        (peers now write the eventfd; a record before the arm is
 *                                                          found by this poll)
 *   fd readable:     wakeup.consumeHostedEvents(); guest.doWork()
 *   signal():        the host's signal (a duty cycle, which polls the guest)
 * </pre>
 * Loop thread only, except {@link #fds()}.
 */
final class TcpHostedWorker
{
    private final Worker guest;
    private final WorkerWakeup wakeup;
    private final ErrorHandler errors;
    private final int[] fds;
    private final List<IoRegistration> registrations = new ArrayList<>();

    TcpHostedWorker(final Worker guest, final ErrorHandler errors)
    {
        this.guest = guest;
        this.wakeup = guest.wakeup();
        this.errors = errors;
        this.fds = wakeup.hostedFds();
    }

    Worker guest()
    {
        return guest;
    }

    long spinNanos()
    {
        return wakeup.spinNanos();
    }

    int[] fds()
    {
        return fds;
    }

    /** Watch the guest's descriptors on {@code loop} (its thread). */
    void register(final IoEventLoop loop)
    {
        for (final int fd : fds)
        {
            final Future<IoRegistration> f = loop.register(new Readable(fd));
            if (!f.isSuccess())
            {
                throw new IllegalStateException("cannot watch descriptor " + fd + " on " + loop + ": " + f.cause(),
                    f.cause());
            }
            final IoRegistration registration = f.getNow();
            registration.submit(EpollIoOps.EPOLLIN);
            registrations.add(registration);
        }
    }

    /** One poll of the guest; its errors are reported, never thrown. */
    int poll()
    {
        try
        {
            return guest.doWork();
        }
        catch (final Throwable t)
        {
            errors.onError(t);
            return 0;
        }
    }

    /** Arm the guest's wake-up, then poll once more. */
    int armAndPoll()
    {
        wakeup.arm();
        return poll();
    }

    /** Stop watching; then the guest may be closed. */
    void unregister()
    {
        registrations.forEach(IoRegistration::cancel);
        registrations.clear();
    }

    /** One of the guest's descriptors (owned by the guest: never closed here). */
    private final class Readable implements EpollIoHandle
    {
        private final FileDescriptor fd;

        Readable(final int fd)
        {
            this.fd = new FileDescriptor(fd);
        }

        @Override
        public FileDescriptor fd()
        {
            return fd;
        }

        @Override
        public void handle(final IoRegistration registration, final IoEvent event)
        {
            try
            {
                wakeup.consumeHostedEvents();
            }
            catch (final Throwable t)
            {
                errors.onError(t);
            }
            poll();
        }

        @Override
        public void close()
        {
            // the descriptor belongs to the guest's wake-up, which closes it with the guest
        }
    }
}

package io.rdmakv.transport;

import org.agrona.DirectBuffer;

import java.net.InetSocketAddress;

/**
 * A connection one caller thread at a time sends on and receives from itself, blocking, with no progress thread:
 * what a pooled client connection is to a thread that waits for its own answer (Jedis' model, one connection per
 * thread), offered by transports with {@link TransportCapability#CALLER_LANES}. An answer then wakes the thread that
 * waits for it straight from the kernel, where an {@link Endpoint}'s answer is read by the worker's progress thread and
 * handed on: one wake-up instead of two.
 *
 * <p>It carries messages only (no reads, no credits): the peer sees an ordinary connection of the transport and
 * answers on it. Not thread-safe: a pool hands it to one thread at a time.
 */
public interface Lane extends AutoCloseable
{
    /** Receives the messages of a lane on the thread that called {@link #receive}. */
    @FunctionalInterface
    interface MessageHandler
    {
        /** The bytes are valid during the call only. */
        void onMessage(DirectBuffer buffer, int offset, int length);
    }

    /**
     * Write one message, blocking until the kernel has taken all of it, at most {@code timeoutNanos} (a peer that stops
     * reading fills the socket: the caller must not wait past its own deadline).
     *
     * @throws TransportException when the message is larger than the transport's message limit or the lane is closed;
     *                            when the connection failed, or the message could not be written within the timeout
     *                            ({@link TransportStatus#TIMED_OUT}): the lane is closed then, since part of the message
     *                            may be written.
     */
    void send(DirectBuffer buffer, int offset, int length, long timeoutNanos);

    /**
     * Wait up to {@code timeoutNanos} for the next message and hand it to {@code handler} on this thread.
     *
     * @return true when a message was handed over; false when none came within the timeout (a transport may close
     *         the lane then, as tcp's does: an answer that comes later would be read as the next request's).
     * @throws TransportException when the peer closed the connection, sent a malformed frame, or the connection failed
     *                            (the lane is closed then).
     */
    boolean receive(MessageHandler handler, long timeoutNanos);

    /** Whether {@link #close} was called or the connection failed. */
    boolean isClosed();

    InetSocketAddress remoteAddress();

    /** Close the connection; idempotent. */
    @Override
    void close();
}

package io.rdmakv.server.handler;

import java.util.function.Function;

/**
 * Builds the {@link RequestHandler}'s write path once, at start. {@link #LOCAL} is the node's own durable write;
 * replication decorates it (it builds the local path with an outcome of its own, and reports to the final one).
 */
@FunctionalInterface
public interface WritePathFactory
{
    /** The local durable write only (a single node, or a node that is nobody's primary). */
    WritePathFactory LOCAL = (local, outcome, wakeUp, writeIds) -> local.apply(outcome);

    /**
     * @param local   makes the local path of the configured durability, reporting to the outcome it is given.
     * @param outcome what a finished write does on this node: pool update and answer.
     * @param wakeUp  wakes the request thread from another thread (it then runs {@link WritePath#doWork()}).
     * @param writeIds the write id of the client write being started, for the copies a replicating path sends.
     */
    WritePath create(Function<WriteOutcome, WritePath> local, WriteOutcome outcome, Runnable wakeUp,
        WriteIds writeIds);
}

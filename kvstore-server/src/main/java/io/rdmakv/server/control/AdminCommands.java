package io.rdmakv.server.control;

import io.rdmakv.protocol.wire.AdminReply;

import java.util.concurrent.CompletableFuture;

/** Carries out an operator's ADMIN command (control plane): status, failover, moves. Must not block the caller. */
@FunctionalInterface
public interface AdminCommands
{
    /** Refuses every command (a node that has none, or before it started). */
    AdminCommands NONE = command -> CompletableFuture.completedFuture(
        new AdminReply(false, "this node does not take administration commands"));

    /** Start {@code command} (words separated by spaces); the future completes with the answer. */
    CompletableFuture<AdminReply> run(String command);
}

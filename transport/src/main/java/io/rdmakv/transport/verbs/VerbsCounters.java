package io.rdmakv.transport.verbs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A snapshot of the verbs fast path's counters (issue 28): what a worker, or a whole transport, posted and polled, so
 * that the fast path's mechanisms can be seen working: posts per doorbell (a batch of reads, a message's fragments
 * and a poll batch's receives each go as one linked list), the signaled share of sends (one in
 * {@code verbs.signalInterval} unless someone waits for the send), the inline share of sends (payloads up to the QP's
 * {@code max_inline_data}), completions per {@code ibv_poll_cq} call, and the system calls of the idle machinery.
 *
 * <pre>
 *   sends, reads          send-queue work requests posted (Send-with-immediate; RDMA Read, always signaled)
 *   sendDoorbells         ibv_post_send calls                       postsPerDoorbell = (sends + reads) / sendDoorbells
 *   signaledSends         sends posted with IBV_SEND_SIGNALED       signaledShare    = signaledSends / sends
 *   inlineSends           sends posted with IBV_SEND_INLINE         inlineShare      = inlineSends / sends
 *   recvs, recvDoorbells  receives re-posted, ibv_post_recv calls   (the initial posting at connect not counted)
 *   polls, completions    ibv_poll_cq calls (empty ones too), completions they returned
 *   busyPolls             the polls that returned at least one       completionsPerPoll = completions / busyPolls
 *   systemCalls           kernel calls made by the worker's own code: ibv_req_notify_cq (arm), poll(2) on the
 *                         channel and eventfd, read(2) of a channel event or of the eventfd, write(2) of the eventfd
 * </pre>
 *
 * <p>The system calls inside the provider's {@code ibv_post_send} / {@code ibv_post_recv} are not in
 * {@code systemCalls}: on a hardware NIC a doorbell is a write to mapped device memory; SoftRoCE's provider makes it a
 * system call, which {@code sendDoorbells} and {@code recvDoorbells} count. A worker whose progress thread keeps
 * polling makes none of its own; one that arms and sleeps when idle makes some per sleep.
 *
 * <p>Ratios of a window are those of {@link #minus} of two snapshots.
 */
public record VerbsCounters(long sends, long reads, long sendDoorbells, long signaledSends, long inlineSends,
    long recvs, long recvDoorbells, long polls, long busyPolls, long completions, long systemCalls)
{
    /** All zero. */
    public static final VerbsCounters ZERO = new VerbsCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** This minus {@code earlier}: the counts of the window between the two snapshots. */
    public VerbsCounters minus(final VerbsCounters earlier)
    {
        return new VerbsCounters(sends - earlier.sends, reads - earlier.reads,
            sendDoorbells - earlier.sendDoorbells, signaledSends - earlier.signaledSends,
            inlineSends - earlier.inlineSends, recvs - earlier.recvs, recvDoorbells - earlier.recvDoorbells,
            polls - earlier.polls, busyPolls - earlier.busyPolls, completions - earlier.completions,
            systemCalls - earlier.systemCalls);
    }

    /** The sum of this and {@code other} (two workers, two windows). */
    public VerbsCounters plus(final VerbsCounters other)
    {
        return new VerbsCounters(sends + other.sends, reads + other.reads, sendDoorbells + other.sendDoorbells,
            signaledSends + other.signaledSends, inlineSends + other.inlineSends, recvs + other.recvs,
            recvDoorbells + other.recvDoorbells, polls + other.polls, busyPolls + other.busyPolls,
            completions + other.completions, systemCalls + other.systemCalls);
    }

    /** Send-queue work requests (sends and reads) per {@code ibv_post_send}; 0 when nothing was posted. */
    public double postsPerDoorbell()
    {
        return ratio(sends + reads, sendDoorbells);
    }

    /** Receives per {@code ibv_post_recv}; 0 when none were re-posted. */
    public double recvsPerDoorbell()
    {
        return ratio(recvs, recvDoorbells);
    }

    /** Signaled sends among sends (reads are always signaled and not in it); 0 when there were no sends. */
    public double signaledShare()
    {
        return ratio(signaledSends, sends);
    }

    /** Inline sends among sends; 0 when there were no sends. */
    public double inlineShare()
    {
        return ratio(inlineSends, sends);
    }

    /** Completions per {@code ibv_poll_cq} call that returned any; 0 when none did. */
    public double completionsPerPoll()
    {
        return ratio(completions, busyPolls);
    }

    /**
     * The counts and ratios by name ({@code verbs.sends}, ..., {@code verbs.postsPerDoorbell}), in a stable order:
     * for logs, properties files and metrics.
     */
    public Map<String, Number> toMap()
    {
        final Map<String, Number> m = new LinkedHashMap<>();
        m.put("verbs.sends", sends);
        m.put("verbs.reads", reads);
        m.put("verbs.sendDoorbells", sendDoorbells);
        m.put("verbs.signaledSends", signaledSends);
        m.put("verbs.inlineSends", inlineSends);
        m.put("verbs.recvs", recvs);
        m.put("verbs.recvDoorbells", recvDoorbells);
        m.put("verbs.polls", polls);
        m.put("verbs.busyPolls", busyPolls);
        m.put("verbs.completions", completions);
        m.put("verbs.systemCalls", systemCalls);
        m.put("verbs.postsPerDoorbell", postsPerDoorbell());
        m.put("verbs.recvsPerDoorbell", recvsPerDoorbell());
        m.put("verbs.signaledShare", signaledShare());
        m.put("verbs.inlineShare", inlineShare());
        m.put("verbs.completionsPerPoll", completionsPerPoll());
        return m;
    }

    private static double ratio(final long count, final long per)
    {
        return per == 0 ? 0.0 : (double)count / per;
    }
}

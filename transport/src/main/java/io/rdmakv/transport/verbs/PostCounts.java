package io.rdmakv.transport.verbs;

/**
 * One endpoint's post-side counts for {@link VerbsCounters}: plain fields, written only under the endpoint's lock
 * (where every post is made), read under it by {@link #snapshotInto}. No allocation, no atomic: a few increments per
 * post.
 */
final class PostCounts
{
    long sends;
    long reads;
    long sendDoorbells;
    long signaledSends;
    long inlineSends;
    long recvs;
    long recvDoorbells;

    /** These counts as a snapshot (worker-side counts zero). Under the endpoint's lock. */
    VerbsCounters snapshot()
    {
        return new VerbsCounters(sends, reads, sendDoorbells, signaledSends, inlineSends, recvs, recvDoorbells,
            0, 0, 0, 0);
    }
}

package io.rdmakv.transport.verbs;

/**
 * The read conformance suite over verbs with workers driven as applications drive them
 * ({@link io.rdmakv.transport.progress.Progress#start}): ARMABLE, so an idle worker sleeps on its completion channel
 * and eventfd (verbs.idle=events) and every completion, task and close must wake it. Skips where verbs is unavailable.
 */
class VerbsArmedReadConformanceTest extends VerbsReadConformanceTest
{
    @Override
    protected boolean progressByModel()
    {
        return true;
    }
}

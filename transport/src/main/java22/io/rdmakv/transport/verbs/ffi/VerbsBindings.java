package io.rdmakv.transport.verbs.ffi;

import io.rdmakv.transport.libc.NativeBindings;

/**
 * Makes a device's {@link VerbsOps} in the binding {@link NativeBindings} chose. This is the JDK 22+ version
 * ({@code META-INF/versions/22}): FFM when FFM was chosen, JNA otherwise.
 */
final class VerbsBindings
{
    private VerbsBindings()
    {
    }

    static VerbsOps ops(final long pollCq, final long reqNotifyCq, final long postSend, final long postRecv,
        final long allocMw, final long deallocMw)
    {
        NativeBindings.checkNotForced();
        return NativeBindings.isFfm() ? new FfmVerbsOps(pollCq, reqNotifyCq, postSend, postRecv, allocMw, deallocMw) :
            new JnaVerbsOps(pollCq, reqNotifyCq, postSend, postRecv, allocMw, deallocMw);
    }

    static String resolveExported()
    {
        NativeBindings.checkNotForced();
        return NativeBindings.isFfm() ? FfmVerbsOps.resolveLibrary() : JnaVerbsOps.resolveLibrary();
    }
}

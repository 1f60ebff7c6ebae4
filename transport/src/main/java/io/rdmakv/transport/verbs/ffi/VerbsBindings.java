package io.rdmakv.transport.verbs.ffi;

import io.rdmakv.transport.libc.NativeBindings;

/**
 * Makes a device's {@link VerbsOps} in the binding {@link NativeBindings} chose. This is the JDK 17 version: JNA.
 * The multi-release jar's {@code META-INF/versions/22} holds the version a JDK 22+ loads, which makes the FFM binding
 * when FFM was chosen.
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
        return new JnaVerbsOps(pollCq, reqNotifyCq, postSend, postRecv, allocMw, deallocMw);
    }

    static String resolveExported()
    {
        NativeBindings.checkNotForced();
        return JnaVerbsOps.resolveLibrary();
    }
}

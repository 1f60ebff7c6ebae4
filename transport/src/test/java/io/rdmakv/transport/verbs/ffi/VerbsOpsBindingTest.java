package io.rdmakv.transport.verbs.ffi;

import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.rdmakv.transport.libc.NativeBindings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs data-path calls in the binding the process chose (JNA on JDK 17, FFM on 22+ from the multi-release
 * classes), without a device: a fake {@code struct ibv_context} whose ops pointers, at {@link VerbsLayout}'s offsets
 * (checked against verbs.h by {@link VerbsLayoutTest}), point at libc functions of a compatible shape, so each bound
 * call's arguments are checked by what the function returns. {@code poll_cq(cq, n, wc)} and
 * {@code req_notify_cq(cq, solicited)} become {@code strchr(s, c)}: non-zero when character {@code c} is in string
 * {@code s}; {@code post_send(qp, wr, bad)} and {@code post_recv} become {@code strcmp(a, b)} (the third argument, in
 * a register, is ignored by the callee on x86-64 and AArch64): 0 when the work request's address names the same
 * string as the QP's. Then the exported calls are resolved from libibverbs.so.1 when it is installed.
 */
class VerbsOpsBindingTest
{
    @Test
    @Timeout(10)
    void shouldPassEveryArgumentOfTheOpsCallsThroughTheChosenBinding()
    {
        final NativeBlock block = new NativeBlock(4096);
        final UnsafeBuffer b = block.buffer();
        final long base = block.address();
        final NativeLibrary libc = NativeLibrary.getInstance("c");
        final long strchr = Pointer.nativeValue(libc.getFunction("strchr"));
        final long strcmp = Pointer.nativeValue(libc.getFunction("strcmp"));
        b.putLong(VerbsLayout.CONTEXT_OPS_POLL_CQ, strchr);
        b.putLong(VerbsLayout.CONTEXT_OPS_REQ_NOTIFY_CQ, strchr);
        b.putLong(VerbsLayout.CONTEXT_OPS_POST_SEND, strcmp);
        b.putLong(VerbsLayout.CONTEXT_OPS_POST_RECV, strcmp);
        final long abc = putString(b, 1024, "abc");
        final long abd = putString(b, 1040, "abd");
        final long abcAgain = putString(b, 1056, "abc");

        final VerbsOps ops = VerbsOps.of(base);
        assertEquals(NativeBindings.name(), ops.binding());
        assertTrue(ops.canNotify());

        assertNotEquals(0, ops.pollCq(abc, 'b', base + 2048).poll(), "strchr(\"abc\", 'b') found it");
        assertEquals(0, ops.pollCq(abc, 'z', base + 2048).poll(), "strchr(\"abc\", 'z'): NULL");
        assertNotEquals(0, ops.reqNotifyCq(abd, 'd').arm());
        assertEquals(0, ops.reqNotifyCq(abd, 'c').arm());

        final long[] wrs = {abd, abcAgain, abc};
        final VerbsOps.Post send = ops.postSend(abc, wrs, base + 3072);
        final VerbsOps.Post recv = ops.postRecv(abd, wrs, base + 3072);
        for (int round = 0; round < 3; round++)
        {
            assertTrue(send.post(0) < 0, "strcmp(\"abc\", \"abd\")");
            assertEquals(0, send.post(1), "strcmp(\"abc\", \"abc\") at another address");
            assertEquals(0, send.post(2));
            assertEquals(0, recv.post(0));
            assertTrue(recv.post(1) > 0);
        }
        assertTrue(ops.isAllocationFree() || NativeBindings.JNA.equals(ops.binding()));
    }

    /**
     * {@code alloc_mw(pd, type)} becomes {@code strchr(s, c)}: the pointer it returns is the found character's, so
     * both arguments and the pointer result travel right; {@code dealloc_mw(mw)} becomes {@code strlen(s)}.
     */
    @Test
    @Timeout(10)
    void shouldPassTheMemoryWindowCallsThroughTheChosenBinding()
    {
        final NativeBlock block = new NativeBlock(4096);
        final UnsafeBuffer b = block.buffer();
        final NativeLibrary libc = NativeLibrary.getInstance("c");
        final long strcmp = Pointer.nativeValue(libc.getFunction("strcmp"));
        b.putLong(VerbsLayout.CONTEXT_OPS_POLL_CQ, strcmp);
        b.putLong(VerbsLayout.CONTEXT_OPS_POST_SEND, strcmp);
        b.putLong(VerbsLayout.CONTEXT_OPS_POST_RECV, strcmp);
        b.putLong(VerbsLayout.CONTEXT_OPS_ALLOC_MW, Pointer.nativeValue(libc.getFunction("strchr")));
        b.putLong(VerbsLayout.CONTEXT_OPS_DEALLOC_MW, Pointer.nativeValue(libc.getFunction("strlen")));
        final long abcd = putString(b, 1024, "abcd");

        final VerbsOps ops = VerbsOps.of(block.address());
        assertTrue(ops.canAllocateWindows());
        assertEquals(abcd + 2, ops.allocMw(abcd, 'c'), "strchr(\"abcd\", 'c')");
        assertEquals(0L, ops.allocMw(abcd, 'z'), "strchr(\"abcd\", 'z'): NULL, as a refused alloc_mw");
        assertEquals(4, ops.deallocMw(abcd), "strlen(\"abcd\")");
    }

    @Test
    void shouldRefuseWindowCallsWhenTheProviderHasNone()
    {
        final NativeBlock block = new NativeBlock(4096);
        final long strcmp = Pointer.nativeValue(NativeLibrary.getInstance("c").getFunction("strcmp"));
        block.buffer().putLong(VerbsLayout.CONTEXT_OPS_POLL_CQ, strcmp);
        block.buffer().putLong(VerbsLayout.CONTEXT_OPS_POST_SEND, strcmp);
        block.buffer().putLong(VerbsLayout.CONTEXT_OPS_POST_RECV, strcmp);
        final VerbsOps ops = VerbsOps.of(block.address());
        assertFalse(ops.canAllocateWindows());
        assertThrows(IllegalStateException.class, () -> ops.allocMw(block.address(), VerbsLayout.MW_TYPE_2));
        assertThrows(IllegalStateException.class, () -> ops.deallocMw(block.address()));
    }

    @Test
    void shouldRefuseToBindReqNotifyCqWhenTheProviderHasNone()
    {
        final NativeBlock block = new NativeBlock(4096);
        final long strcmp = Pointer.nativeValue(NativeLibrary.getInstance("c").getFunction("strcmp"));
        block.buffer().putLong(VerbsLayout.CONTEXT_OPS_POLL_CQ, strcmp);
        block.buffer().putLong(VerbsLayout.CONTEXT_OPS_POST_SEND, strcmp);
        block.buffer().putLong(VerbsLayout.CONTEXT_OPS_POST_RECV, strcmp);
        final VerbsOps ops = VerbsOps.of(block.address());
        assertTrue(!ops.canNotify());
        assertThrows(IllegalStateException.class, () -> ops.reqNotifyCq(0, 0));
    }

    @Test
    void shouldResolveTheExportedCompletionChannelCallsFromLibibverbs()
    {
        Assumptions.assumeTrue(LibIbverbs.isLoaded() || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1")),
            () -> "skipped: libibverbs.so.1 not installed (apt-get install ibverbs-providers rdma-core): " +
                LibIbverbs.loadFailure());
        final String resolved = VerbsOps.resolveExported();
        assertTrue(resolved.startsWith(NativeBindings.name() + ": "), resolved);
    }

    private static long putString(final UnsafeBuffer b, final int offset, final String s)
    {
        final byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        b.putBytes(offset, bytes);
        b.putByte(offset + bytes.length, (byte)0);
        return b.addressOffset() + offset;
    }
}

package io.rdmakv.client;

import java.util.List;

/**
 * One call of a key scan ({@link KvClient#scan}): the keys it found (maybe none, even before the end, as with
 * Redis's SCAN) and the cursor to go on from ({@link ScanCursor#isFinished()} at the end).
 *
 * @param cursor where the next call goes on.
 * @param keys   the keys found by this call, in their node's order.
 */
public record ScanResult(ScanCursor cursor, List<byte[]> keys)
{
}

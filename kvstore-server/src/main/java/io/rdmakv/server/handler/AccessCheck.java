package io.rdmakv.server.handler;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.server.session.Access;

/**
 * The one authorisation check of the data path: what role each request type needs, and whether its key is inside
 * the session's prefixes. The {@link RequestHandler} asks it once per decoded request of a session that is not
 * {@link Access#unlimited() unlimited} (the shared secret and an open node are, and skip it).
 *
 * <pre>
 *   GET, STATS                      read        (GET's key inside the prefixes; a client's multiGet is GETs)
 *   PUT, DELETE                     readwrite   (key inside the prefixes)
 *   BATCH_WRITE                     readwrite   (every key inside the prefixes): an atomic multi-key write
 *   RECORD_WRITE                    readwrite   (key inside the prefixes): conditional writes, counters, expiry
 *                                               changes; its TTL read needs read only; a PUT keeping the data
 *                                               version it carries (a restore) needs admin
 *   KEY_SCAN (scan, range, prefix)  read        and no key prefixes: a page lists keys in store order, so a user
 *                                               limited to prefixes would learn names outside them
 *   SCAN (backup), REPLICATE        admin       (a node's own links authenticate with the shared secret)
 *   any other type                  admin       until it is classified here: a new request type is refused to
 *                                               limited users rather than let through unchecked
 * </pre>
 */
final class AccessCheck
{
    private AccessCheck()
    {
    }

    /**
     * @return null when {@code access} may send the request {@code decoder} just decoded; otherwise why not (for
     *         the FORBIDDEN answer).
     */
    static String refusal(final Access access, final MessageType type, final MessageDecoder decoder)
    {
        switch (type)
        {
            case GET_REQUEST ->
            {
                final KeyRequestFlyweight get = decoder.keyRequest();
                return check(access, Role.READ, "GET", get.buffer(), get.keyIndex(), get.keyLength());
            }
            case RECORD_WRITE_REQUEST ->
            {
                final RecordWriteRequestFlyweight record = decoder.recordWriteRequest();
                final boolean read = record.op() == RecordWriteRequestFlyweight.OP_TTL;
                // A PUT that keeps the data version it carries is a restore's: it could set a key back to a version
                // a client holds from before, so it needs admin, as the backup (SCAN) it restores does.
                final boolean restore = record.op() == RecordWriteRequestFlyweight.OP_PUT &&
                    record.expectedVersion() != 0;
                return check(access, read ? Role.READ : restore ? Role.ADMIN : Role.READWRITE, read ? "TTL" :
                    restore ? "restore a data version" : "write", record.buffer(), record.keyIndex(),
                    record.keyLength());
            }
            case BATCH_WRITE_REQUEST ->
            {
                final BatchWriteRequestFlyweight batch = decoder.batchWriteRequest();
                int entry = batch.entriesIndex();
                for (int i = 0; i < batch.entryCount(); i++)
                {
                    final String refusal = check(access, Role.READWRITE, "write", batch.buffer(),
                        BatchWriteRequestFlyweight.entryKeyIndex(entry),
                        BatchWriteRequestFlyweight.entryKeyLength(batch.buffer(), entry));
                    if (refusal != null)
                    {
                        return refusal;
                    }
                    entry = BatchWriteRequestFlyweight.nextEntry(batch.buffer(), entry);
                }
                return null;
            }
            case KEY_SCAN_REQUEST ->
            {
                if (access.prefixes().length > 0 && access.may(Role.READ))
                {
                    return access.describe() + " may not scan: it is limited to key prefixes, and a scan lists " +
                        "keys in store order";
                }
                return check(access, Role.READ, "scan", null, 0, 0);
            }
            case STATS_REQUEST, ATTACH_REQUEST ->
            {
                return check(access, Role.READ, type.name(), null, 0, 0);
            }
            case PUT_REQUEST ->
            {
                final PutRequestFlyweight put = decoder.putRequest();
                return check(access, Role.READWRITE, "PUT", put.buffer(), put.keyIndex(), put.keyLength());
            }
            case DELETE_REQUEST ->
            {
                final KeyRequestFlyweight delete = decoder.keyRequest();
                return check(access, Role.READWRITE, "DELETE", delete.buffer(), delete.keyIndex(),
                    delete.keyLength());
            }
            default ->
            {
                return check(access, Role.ADMIN, type.name(), null, 0, 0);
            }
        }
    }

    private static String check(final Access access, final Role needed, final String what,
        final org.agrona.DirectBuffer key, final int keyOffset, final int keyLength)
    {
        if (!access.may(needed))
        {
            return access.describe() + " may not " + what + ": it needs the role " + needed.word();
        }
        if (key != null && keyLength > 0 && !access.covers(key, keyOffset, keyLength))
        {
            return access.describe() + " may not " + what + " this key: it is outside the user's key prefixes";
        }
        return null;
    }
}

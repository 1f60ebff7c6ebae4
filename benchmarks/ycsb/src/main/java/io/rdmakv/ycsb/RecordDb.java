package io.rdmakv.ycsb;

import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The YCSB operations over a store that keeps one value per key, written once for every binding of this module so
 * they differ only in the three calls a store makes ({@link #getRecord}, {@link #putRecord}, {@link #deleteRecord}).
 *
 * <ul>
 *   <li>The key is YCSB's key as UTF-8; the table name is ignored (YCSB runs one table, as its redis binding
 *       does).</li>
 *   <li>A record is one value in {@link RecordCodec}'s encoding.</li>
 *   <li>{@code read}: one GET, then the wanted fields are decoded (all when YCSB asks for all).</li>
 *   <li>{@code insert}: one PUT of the whole record.</li>
 *   <li>{@code update}, with {@value #UPDATE_MODE} = {@code merge} (default): a GET of the record, the updated
 *       fields merged into it, one PUT of the whole record; a missing record is written with the updated fields
 *       alone (an upsert, as redis' HSET does). YCSB A with its default {@code writeallfields=false} updates one field
 *       of ten: merging keeps the record whole, as YCSB's own redis binding (HSET on a hash) does, at the price of
 *       two round trips per update, the same two on every store. With {@code overwrite}: one PUT of the fields
 *       given (what YCSB's memcached binding does): one round trip, but a record updated with one field then holds
 *       one field.</li>
 *   <li>{@code delete}: one DELETE.</li>
 *   <li>{@code scan}: {@link Status#NOT_IMPLEMENTED} (rdmakv has no range scans; the redis binding answers the same
 *       so workloads A, B, C and F compare like for like; E cannot run).</li>
 * </ul>
 *
 * A store's failure is {@link Status#ERROR} (the first one of the JVM is printed to standard error with its cause);
 * an absent key is {@link Status#NOT_FOUND}.
 */
public abstract class RecordDb extends DB
{
    /** The property choosing how {@code update} writes: {@code merge} (default) or {@code overwrite}. */
    public static final String UPDATE_MODE = "record.update";

    private static final AtomicBoolean FIRST_ERROR_PRINTED = new AtomicBoolean();

    private boolean merge = true;

    /**
     * Reads {@value #UPDATE_MODE}; subclasses call it from their {@code init}.
     *
     * @throws IllegalArgumentException when the property has another value.
     */
    protected final void readRecordProperties()
    {
        final String mode = getProperties().getProperty(UPDATE_MODE, "merge").trim().toLowerCase(Locale.ROOT);
        switch (mode)
        {
            case "merge":
                merge = true;
                break;
            case "overwrite":
                merge = false;
                break;
            default:
                throw new IllegalArgumentException(UPDATE_MODE + "=" + mode + ": merge or overwrite");
        }
    }

    /**
     * The stored value of a key.
     *
     * @param key the key's bytes.
     * @return the value, {@code null} when the key is absent.
     * @throws Exception when the store fails.
     */
    protected abstract byte[] getRecord(byte[] key) throws Exception;

    /**
     * Store a value.
     *
     * @param key    the key's bytes.
     * @param record the value.
     * @throws Exception when the store fails.
     */
    protected abstract void putRecord(byte[] key, byte[] record) throws Exception;

    /**
     * Delete a key.
     *
     * @param key the key's bytes.
     * @return whether the key was there.
     * @throws Exception when the store fails.
     */
    protected abstract boolean deleteRecord(byte[] key) throws Exception;

    @Override
    public final Status read(final String table, final String key, final Set<String> fields,
        final Map<String, ByteIterator> result)
    {
        try
        {
            final byte[] record = getRecord(keyBytes(key));
            if (record == null)
            {
                return Status.NOT_FOUND;
            }
            RecordCodec.decode(record, fields, result);
            return Status.OK;
        }
        catch (final Exception ex)
        {
            return failed("read", key, ex);
        }
    }

    @Override
    public final Status scan(final String table, final String startkey, final int recordcount, final Set<String> fields,
        final Vector<HashMap<String, ByteIterator>> result)
    {
        return Status.NOT_IMPLEMENTED;
    }

    @Override
    public final Status update(final String table, final String key, final Map<String, ByteIterator> values)
    {
        try
        {
            final byte[] k = keyBytes(key);
            putRecord(k, merge ? RecordCodec.merge(getRecord(k), values) : RecordCodec.encode(values));
            return Status.OK;
        }
        catch (final Exception ex)
        {
            return failed("update", key, ex);
        }
    }

    @Override
    public final Status insert(final String table, final String key, final Map<String, ByteIterator> values)
    {
        try
        {
            putRecord(keyBytes(key), RecordCodec.encode(values));
            return Status.OK;
        }
        catch (final Exception ex)
        {
            return failed("insert", key, ex);
        }
    }

    @Override
    public final Status delete(final String table, final String key)
    {
        try
        {
            return deleteRecord(keyBytes(key)) ? Status.OK : Status.NOT_FOUND;
        }
        catch (final Exception ex)
        {
            return failed("delete", key, ex);
        }
    }

    private static byte[] keyBytes(final String key)
    {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private Status failed(final String operation, final String key, final Exception ex)
    {
        if (FIRST_ERROR_PRINTED.compareAndSet(false, true))
        {
            System.err.println(getClass().getSimpleName() + ": " + operation + " of " + key + " failed (the first " +
                "failure of this JVM; later ones only count as ERROR in YCSB's report):");
            ex.printStackTrace();
        }
        return Status.ERROR;
    }
}

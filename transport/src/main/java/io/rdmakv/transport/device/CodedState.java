package io.rdmakv.transport.device;

/**
 * A sysfs value of the form {@code "<code>: <label>"}, as the kernel writes a port's {@code state}
 * ({@code "4: ACTIVE"}), {@code phys_state} ({@code "5: LinkUp"}) and a device's {@code node_type} ({@code "1: CA"}).
 *
 * @param code  the number, or {@link #UNKNOWN_CODE} when the text had none.
 * @param label the text after the colon (or the whole trimmed text when there was no number).
 */
public record CodedState(int code, String label)
{
    public static final int UNKNOWN_CODE = -1;

    /** Port state ACTIVE in {@code state} ({@code IB_PORT_ACTIVE}). */
    public static final int PORT_ACTIVE = 4;
    /** Port state INIT: the physical link is up but no subnet manager has configured the port (InfiniBand). */
    public static final int PORT_INIT = 2;
    /** Physical state LinkUp in {@code phys_state}. */
    public static final int PHYS_LINK_UP = 5;

    /** Parse {@code "4: ACTIVE"}; text without a leading number gives {@link #UNKNOWN_CODE}. Never throws. */
    public static CodedState parse(final String text)
    {
        final String t = text == null ? "" : text.trim();
        final int colon = t.indexOf(':');
        if (colon > 0)
        {
            try
            {
                return new CodedState(Integer.parseInt(t.substring(0, colon).trim()), t.substring(colon + 1).trim());
            }
            catch (final NumberFormatException ignore)
            {
                // Not a coded value: keep the text whole, below.
            }
        }
        return new CodedState(UNKNOWN_CODE, t.isEmpty() ? "(unreadable)" : t);
    }

    @Override
    public String toString()
    {
        return code == UNKNOWN_CODE ? label : label + " (" + code + ")";
    }
}

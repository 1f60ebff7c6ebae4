package io.rdmakv.transport.verbs.ffi;

/** The errno values verbs calls report, with the text an operator needs; no libc call so it works without JNA. */
public final class Errno
{
    private Errno()
    {
    }

    /** {@code "Cannot allocate memory (ENOMEM, errno 12)"} and so on; unknown values print their number. */
    public static String describe(final int errno)
    {
        final String text;
        switch (errno)
        {
            case 1: text = "Operation not permitted (EPERM)"; break;
            case 2: text = "No such file or directory (ENOENT)"; break;
            case 5: text = "Input/output error (EIO)"; break;
            case 11: text = "Resource temporarily unavailable (EAGAIN)"; break;
            case 12: text = "Cannot allocate memory (ENOMEM; check ulimit -l / RLIMIT_MEMLOCK)"; break;
            case 13: text = "Permission denied (EACCES)"; break;
            case 14: text = "Bad address (EFAULT)"; break;
            case 16: text = "Device or resource busy (EBUSY)"; break;
            case 19: text = "No such device (ENODEV)"; break;
            case 22: text = "Invalid argument (EINVAL)"; break;
            case 38: text = "Function not implemented (ENOSYS)"; break;
            case 95: text = "Operation not supported (EOPNOTSUPP)"; break;
            case 110: text = "Connection timed out (ETIMEDOUT)"; break;
            default: text = "errno"; break;
        }
        return text + " [" + errno + "]";
    }
}

package io.rdmakv.cli.doctor;

/** Outcome of one diagnostic check, ordered from good to bad so the worst of a report is its verdict. */
public enum Severity
{
    /** Works as wanted. */
    OK,
    /** Works, but not as well as it could (e.g. TCP fallback on a machine without RDMA), or worth a look. */
    WARN,
    /** The configuration cannot work; {@code doctor} exits non-zero. */
    FAIL;

    /** The worse of two severities. */
    public Severity worst(final Severity other)
    {
        return other.ordinal() > ordinal() ? other : this;
    }
}

package io.rdmakv.cli.bench;

/** The operations a workload issues. */
public enum OpType
{
    /** Read an existing key. */
    GET,
    /** Overwrite an existing key (YCSB's update). */
    PUT,
    /** Write a new key past the loaded ones (YCSB's insert, workload D). */
    INSERT
}

/**
 * Offline data loading for measurements: a reproducible synthetic data set and its bulk load into a node's data
 * directory ({@code rdmakv load}), so start-up with a gigabyte of data can be measured without a running server.
 * Must never depend on: the transport, the memory pool, the request handlers or the control plane.
 */
package io.rdmakv.server.load;

/** The Tableflow benchmark: materialization throughput per core and table lag at a steady produce rate. */
package io.floe.benchmarks.tableflow;

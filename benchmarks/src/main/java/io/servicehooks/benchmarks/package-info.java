/**
 * Measurements, never a dependency of the library: the JMH benchmarks of the core path ({@link
 * io.servicehooks.benchmarks.CorePathBenchmark}) and of the dedup store ({@link
 * io.servicehooks.benchmarks.DedupBenchmark}), the dedup memory probe ({@link
 * io.servicehooks.benchmarks.DedupMemory}), and for the load harness ({@code load.sh}) the
 * hand-written Undertow baselines, the tuned consumer, the pool of pre-signed deliveries and the
 * report. Everything sends the same bodies, built in one place.
 */
package io.servicehooks.benchmarks;

/**
 * A Kafka broker in a process of its own, for benchmarks and fleet tests: {@link
 * io.servicehooks.kafkabroker.KafkaBrokerMain} runs it, {@link
 * io.servicehooks.kafkabroker.KafkaBrokerProcess} starts, stops and restarts it from another JVM.
 */
package io.servicehooks.kafkabroker;

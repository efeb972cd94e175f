/**
 * Load baseline (c) of {@code benchmarks/load.sh}: {@link
 * io.servicehooks.benchmarks.spring.SpringBaseline}, a plain Spring Boot application that does by
 * hand what servicehooks does for a delivery, without servicehooks. Never a dependency of the
 * library.
 */
package io.servicehooks.benchmarks.spring;

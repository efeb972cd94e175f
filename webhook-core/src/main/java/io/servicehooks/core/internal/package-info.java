/**
 * Helpers the servicehooks modules share and applications should not use: not API, may change
 * without notice.
 */
package io.servicehooks.core.internal;

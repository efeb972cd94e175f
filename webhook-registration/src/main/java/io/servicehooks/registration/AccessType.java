package io.servicehooks.registration;

import java.util.Locale;

/**
 * The access a user is asked to grant ({@code x_auth_access_type}); by default the platform asks
 * for what the application's settings say.
 */
public enum AccessType {
  /** Read only. */
  READ,
  /** Read and write. */
  WRITE;

  /** The parameter value: {@code read} or {@code write}. */
  public String parameterValue() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The sources {@link UserCredentialsSource} makes. */
final class UserCredentialsSources {

  private UserCredentialsSources() {}

  /** One user's credentials; for any user when they name none. */
  record Single(UserCredentials credentials, String origin) implements UserCredentialsSource {
    @Override
    public Optional<UserCredentials> forUser(String userId) {
      return credentials.userId() == null || credentials.userId().equals(userId)
          ? Optional.of(credentials)
          : Optional.empty();
    }

    @Override
    public String toString() {
      return "UserCredentialsSource["
          + origin
          + (credentials.userId() == null ? "" : ", user " + credentials.userId())
          + "]";
    }
  }

  /** None at all, saying where it looked. */
  record None(String looked) implements UserCredentialsSource {
    @Override
    public Optional<UserCredentials> forUser(String userId) {
      return Optional.empty();
    }

    @Override
    public String toString() {
      return "UserCredentialsSource[none: " + looked + "]";
    }
  }

  static UserCredentialsSource fromEnvironment(Map<String, String> env, String home) {
    String token = blankToNull(env.get(UserCredentialsSource.TOKEN_VARIABLE));
    String secret = blankToNull(env.get(UserCredentialsSource.TOKEN_SECRET_VARIABLE));
    if (token != null && secret != null) {
      return new Single(
          UserCredentials.of(token, secret),
          UserCredentialsSource.TOKEN_VARIABLE
              + " and "
              + UserCredentialsSource.TOKEN_SECRET_VARIABLE);
    }
    if (token != null || secret != null) {
      throw new IllegalStateException(
          (token == null
                  ? UserCredentialsSource.TOKEN_VARIABLE
                  : UserCredentialsSource.TOKEN_SECRET_VARIABLE)
              + " is not set, though "
              + (token == null
                  ? UserCredentialsSource.TOKEN_SECRET_VARIABLE
                  : UserCredentialsSource.TOKEN_VARIABLE)
              + " is: set both, or neither to use the file of `servicehooks auth login`");
    }
    Path file = home == null ? null : Path.of(home).resolve(UserCredentialsSource.CREDENTIALS_FILE);
    if (file == null || !Files.isRegularFile(file)) {
      return new None(
          UserCredentialsSource.TOKEN_VARIABLE
              + " and "
              + UserCredentialsSource.TOKEN_SECRET_VARIABLE
              + " are not set, and there is no "
              + (file == null ? "~/" + UserCredentialsSource.CREDENTIALS_FILE : file)
              + " (run `servicehooks auth login`)");
    }
    return new Single(read(file), file.toString());
  }

  /** The credentials file as the CLI writes it: mode 0600, with the token, secret and user. */
  private static UserCredentials read(Path file) {
    try {
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
        for (PosixFilePermission p : permissions) {
          if (p.name().startsWith("GROUP_") || p.name().startsWith("OTHERS_")) {
            throw new IllegalStateException(
                "credentials file "
                    + file
                    + " may be read by group or others; it holds a secret that acts for the user."
                    + " Run: chmod 600 "
                    + file);
          }
        }
      }
      JsonNode root;
      try {
        root = Responses.JSON.readTree(Files.readAllBytes(file));
      } catch (IOException notJson) {
        // the parser's message may quote the file: never show it
        throw new IllegalStateException(
            "credentials file " + file + " is not JSON; run `servicehooks auth login` again");
      }
      String token = root == null ? null : blankToNull(Responses.text(root, "oauth_token"));
      String secret = root == null ? null : blankToNull(Responses.text(root, "oauth_token_secret"));
      if (token == null || secret == null) {
        throw new IllegalStateException(
            "credentials file "
                + file
                + " has no oauth_token and oauth_token_secret; run `servicehooks auth login` again");
      }
      return new UserCredentials(
          token,
          secret,
          blankToNull(Responses.text(root, "user_id")),
          blankToNull(Responses.text(root, "screen_name")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read credentials file " + file, e);
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}

package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.registration.UserCredentials;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * The user's OAuth 1.0a credentials on disk: {@code ~/.config/servicehooks/credentials.json} (or
 * the {@code --credentials-file}), created with mode 0600 in a directory created with 0700. A file
 * that group or others may access is refused, with the {@code chmod} that fixes it: the token
 * secret acts for the user like a password.
 */
final class UserCredentialsFile {

  static final String DEFAULT_RELATIVE = ".config/servicehooks/credentials.json";

  /**
   * What the file holds: the credentials, and the platform they were issued by ({@code base_url}),
   * or null when the file does not say.
   */
  record Saved(UserCredentials credentials, URI platform) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<PosixFilePermission> OWNER_ONLY_FILE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_ONLY_DIR =
      PosixFilePermissions.fromString("rwx------");
  private static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

  private final Path path;

  UserCredentialsFile(Path path) {
    this.path = path;
  }

  /** {@code given}, else {@code $HOME/.config/servicehooks/credentials.json}. */
  static UserCredentialsFile resolve(Path given, String home) {
    if (given != null) {
      return new UserCredentialsFile(given.toAbsolutePath());
    }
    String base = home != null ? home : System.getProperty("user.home");
    return new UserCredentialsFile(Path.of(base).resolve(DEFAULT_RELATIVE).toAbsolutePath());
  }

  Path path() {
    return path;
  }

  /**
   * The saved credentials and their platform, or empty when there is no file.
   *
   * @throws ServicehooksCli.UsageException when group or others may access the file, or it is not a
   *     credentials file
   */
  Optional<Saved> read() throws IOException {
    if (!Files.exists(path)) {
      return Optional.empty();
    }
    checkOwnerOnly();
    JsonNode root;
    try {
      root = JSON.readTree(Files.readAllBytes(path));
    } catch (NoSuchFileException gone) {
      return Optional.empty();
    } catch (IOException notJson) {
      // the parser's message may quote the file's content: never show it
      throw new ServicehooksCli.UsageException(
          "credentials file " + path + " is not valid JSON; run `servicehooks auth login` again");
    }
    String token = text(root, "oauth_token");
    String secret = text(root, "oauth_token_secret");
    if (token == null || secret == null) {
      throw new ServicehooksCli.UsageException(
          "credentials file "
              + path
              + " has no oauth_token and oauth_token_secret; run `servicehooks auth login` again");
    }
    String baseUrl = text(root, "base_url");
    URI platform = null;
    if (baseUrl != null) {
      try {
        platform = new URI(baseUrl);
      } catch (URISyntaxException e) {
        platform = null;
      }
      if (platform == null || platform.getScheme() == null || platform.getHost() == null) {
        throw new ServicehooksCli.UsageException(
            "credentials file "
                + path
                + " names no usable platform in base_url; run `servicehooks auth login` again");
      }
    }
    return Optional.of(
        new Saved(
            new UserCredentials(token, secret, text(root, "user_id"), text(root, "screen_name")),
            platform));
  }

  /**
   * Writes the credentials: a new file with mode 0600 moved over the old one, so the secret is
   * never readable by others, not even for a moment.
   */
  void write(UserCredentials credentials, String baseUrl, Instant now) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("user_id", credentials.userId());
    root.put("screen_name", credentials.screenName());
    root.put("oauth_token", credentials.token());
    root.put("oauth_token_secret", credentials.tokenSecret());
    root.put("base_url", baseUrl);
    root.put("created_at", now.toString());
    Path dir = path.getParent();
    Path temp;
    if (POSIX) {
      if (!Files.exists(dir)) {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
      }
      temp =
          Files.createTempFile(
              dir, ".credentials", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
    } else {
      Files.createDirectories(dir);
      temp = Files.createTempFile(dir, ".credentials", ".tmp");
    }
    try {
      Files.write(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
      try {
        Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Deletes the file; returns whether there was one. */
  boolean delete() throws IOException {
    return Files.deleteIfExists(path);
  }

  private void checkOwnerOnly() throws IOException {
    if (!POSIX) {
      return;
    }
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path);
    for (PosixFilePermission permission : permissions) {
      if (!OWNER_ONLY_FILE.contains(permission)
          && permission != PosixFilePermission.OWNER_EXECUTE) {
        throw new ServicehooksCli.UsageException(
            "credentials file "
                + path
                + " may be read by group or others (mode "
                + mode(permissions)
                + "); it holds a secret that acts for the user. Run: chmod 600 "
                + path);
      }
    }
  }

  private static String mode(Set<PosixFilePermission> permissions) {
    int mode = 0;
    for (PosixFilePermission permission : permissions) {
      mode |= 1 << (8 - permission.ordinal());
    }
    return String.format("%04o", mode);
  }

  private static String text(JsonNode root, String field) {
    JsonNode value = root == null ? null : root.get(field);
    return value == null || !value.isTextual() || value.asText().isBlank() ? null : value.asText();
  }

  @Override
  public String toString() {
    return "UserCredentialsFile[" + path + "]";
  }
}

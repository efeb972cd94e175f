package io.servicehooks.undertow;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Arrays;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/** Loads a TLS context from a PKCS#12 (or JKS) key store; the password is wiped once used. */
final class KeyStoreTls {

  private KeyStoreTls() {}

  /**
   * @throws IllegalArgumentException if the key store cannot be read or opened with the password
   */
  static SSLContext load(Path keyStore, char[] password) {
    try (InputStream in = Files.newInputStream(keyStore)) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(in, password);
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot load key store " + keyStore + ": " + e.getMessage(), e);
    } finally {
      Arrays.fill(password, '\0');
    }
  }
}

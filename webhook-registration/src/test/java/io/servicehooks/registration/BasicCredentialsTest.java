package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

final class BasicCredentialsTest {

  @Test
  void encode_publishedVector_matchesKnownAnswer() {
    // docs/protocol.md#known-answers
    assertThat(
            BasicCredentials.encode(
                "xvz1evFS4wEEPTGEFPHBog", "L8qq9PZyRg6ieKGEKhZolGC0vJWLw8iEJ88DRdyOg"))
        .isEqualTo(
            "eHZ6MWV2RlM0d0VFUFRHRUZQSEJvZzpMOHFxOVBaeVJnNmllS0dFS2hab2xHQzB2SldMdzhpRUo4OERSZHlPZw==");
  }

  @Test
  void encode_reservedCharacters_areUrlEncodedBeforeJoining() {
    String decoded =
        new String(
            Base64.getDecoder().decode(BasicCredentials.encode("a:b", "c d/é")),
            StandardCharsets.UTF_8);

    assertThat(decoded).isEqualTo("a%3Ab:c+d%2F%C3%A9");
  }
}

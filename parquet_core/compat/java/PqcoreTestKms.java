// Test-only KMS client for parquet-java (pqc compat's Spark reader of KMS-encrypted files,
// and tests/spark/test_keytools_spark.py).
//
// Master keys come from the Hadoop property "pqcore.test.master.keys" as
// "id:base64key,id:base64key". A key is wrapped with AES-GCM under the master
// key, the master key id (UTF-8) as AAD, and stored as base64(nonce | ciphertext
// | tag): the same scheme as parquet_core's InMemoryKms, written here against
// the JDK's own AES-GCM so the two sides share no code.

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.keytools.KmsClient;

public class PqcoreTestKms implements KmsClient {
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();
  private final Map<String, byte[]> masterKeys = new HashMap<>();

  @Override
  public void initialize(Configuration conf, String kmsInstanceID, String kmsInstanceURL,
                         String accessToken) {
    for (String entry : conf.getTrimmed("pqcore.test.master.keys", "").split(",")) {
      if (entry.trim().isEmpty()) {
        continue;
      }
      String[] idAndKey = entry.split(":");
      masterKeys.put(idAndKey[0].trim(), Base64.getDecoder().decode(idAndKey[1].trim()));
    }
  }

  private Cipher cipher(int mode, String masterKeyId, byte[] nonce)
      throws KeyAccessDeniedException, GeneralSecurityException {
    byte[] key = masterKeys.get(masterKeyId);
    if (key == null) {
      throw new KeyAccessDeniedException("unknown master key " + masterKeyId);
    }
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG_BITS, nonce));
    c.updateAAD(masterKeyId.getBytes(StandardCharsets.UTF_8));
    return c;
  }

  @Override
  public String wrapKey(byte[] keyBytes, String masterKeyId) throws KeyAccessDeniedException {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      byte[] sealed = cipher(Cipher.ENCRYPT_MODE, masterKeyId, nonce).doFinal(keyBytes);
      byte[] out = new byte[NONCE_BYTES + sealed.length];
      System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
      System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
      return Base64.getEncoder().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new RuntimeException("wrapping with master key " + masterKeyId + " failed", e);
    }
  }

  @Override
  public byte[] unwrapKey(String wrappedKey, String masterKeyId) throws KeyAccessDeniedException {
    byte[] raw = Base64.getDecoder().decode(wrappedKey);
    byte[] nonce = new byte[NONCE_BYTES];
    System.arraycopy(raw, 0, nonce, 0, NONCE_BYTES);
    try {
      return cipher(Cipher.DECRYPT_MODE, masterKeyId, nonce)
          .doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      throw new RuntimeException("unwrapping with master key " + masterKeyId + " failed", e);
    }
  }
}

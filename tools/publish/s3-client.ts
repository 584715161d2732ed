/**
 * The one place the S3 client is configured. Credentials come from the SDK's standard chain
 * (environment, shared config/profile, SSO, instance roles) unless a caller passes some.
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** Attempts per request (the first try included). With 'standard' mode the SDK backs off exponentially with jitter on throttling, 5xx and network errors. */
const DEFAULT_MAX_ATTEMPTS = 5;

export interface ClientSettings {
  endpoint?: string;
  region?: string;
  maxAttempts?: number;
  credentials?: S3ClientConfig['credentials'];
}

export function createS3Client(settings: ClientSettings): S3Client {
  // The SDK warns from each client's constructor that its releases after January 2027 need
  // Node 22. This project still runs on Node 20.19 (the engines floor, tested in CI beside
  // Node 24), so the warning would only bury the output of `pepe publish`, the bench and the
  // tests in CI logs. A user's own setting wins.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ||= 'true';
  return new S3Client({
    // An S3-compatible server has no region of its own, but the SDK refuses to sign without one.
    ...(settings.region ? { region: settings.region } : settings.endpoint ? { region: 'us-east-1' } : {}),
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // Only send/check checksums where S3 demands them: S3-compatible servers (s3rver, older
    // MinIO) otherwise store streamed bodies with their aws-chunked framing.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    retryMode: 'standard',
    maxAttempts: settings.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
  });
}

/**
 * Reading a response body's chunks as they come: through the stream's own reader, or --
 * for the bodies of watches (`http_client.ts`, `http1_streams.ts`) -- directly from their
 * source, without a web stream's promises and copies for each chunk.
 *
 * @module
 */

/** Takes the chunks of a stream one by one; see {@link chunkReaderOf}. */
export interface ChunkReader {
  /**
   * The next chunk; `undefined` at the end. Rejects as the stream's reads would. The chunk
   * may be lent: its bytes are valid until the next `read()` or `cancel()` (decode or copy
   * them before).
   */
  read(): Promise<Uint8Array | undefined>;
  /** Stop reading: the source is cancelled. */
  cancel(reason?: unknown): Promise<void>;
}

/** The direct readers of streams, until taken by {@link chunkReaderOf}. */
const directReaders = new WeakMap<ReadableStream<Uint8Array>, ChunkReader>();

/**
 * A reader of the stream's chunks. For a stream with a direct reader ({@link lendChunks}:
 * a watch's body), the chunks come from the source as the stream's pulls would take them,
 * without the stream's machinery in between -- a read request, its promises and result, an
 * enqueue -- for each of a long watch's many chunks, and without their copies: each is
 * lent in the buffer it was read into; the stream itself is locked. Any other stream is
 * read through its own reader.
 */
export function chunkReaderOf(stream: ReadableStream<Uint8Array>): ChunkReader {
  const direct = directReaders.get(stream);
  if (direct !== undefined && !stream.locked) {
    directReaders.delete(stream);
    stream.getReader(); // locked: its chunks are taken here, never by its pulls
    return direct;
  }
  const reader = stream.getReader();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

/**
 * Give the stream a direct reader of the same chunks, for {@link chunkReaderOf}: it takes
 * them instead of the stream, which is then locked, unread.
 */
export function lendChunks(stream: ReadableStream<Uint8Array>, reader: ChunkReader): void {
  directReaders.set(stream, reader);
}

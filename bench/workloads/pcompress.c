// pcompress: a small pigz-like parallel compressor, the realistic correct workload of pecan's
// hunt and analysis benchmarks (issues 17 and 18). It is race-free by design.
//
// A reader thread cuts the input into blocks and queues them; worker threads compress blocks
// (LZ77 tokens plus an adler32 of the block) in any order; a writer thread emits them in input
// order and keeps a crc32 of the stream. Block buffers come from a bounded pool and go back to
// it once written, so memory stays bounded and every buffer is handed between threads under a
// mutex. At the end the main thread decompresses the stream and checks it against the input.
//
// Usage: pcompress [-t threads] [-b block_kib] [-o out_file] [-n input_kib | input_file]
// Without a file the input is input_kib KiB of generated text-like data (same every run).
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_MATCH 4
#define MAX_MATCH (MIN_MATCH + 127)  // a match token holds length - MIN_MATCH in 7 bits
#define MAX_DISTANCE 65535           // ... and the distance in 2 bytes
#define MAX_LITERALS 128             // a literal token holds count - 1 in 7 bits
#define HASH_BITS 12
#define HEADER_BYTES 12  // raw length, payload length (top bit: stored raw), adler32
#define STORED_FLAG 0x80000000u

struct job {
  long seq;
  unsigned char* in;
  size_t in_len;
  unsigned char* out;
  size_t out_len;
  int stored;  // payload is the block itself: compressing did not make it smaller
  uint32_t check;
  struct job* next;
};

// Free block buffers: the reader takes one per block, the writer gives it back.
struct pool {
  pthread_mutex_t lock;
  pthread_cond_t available;
  struct job* free;
};

// Blocks read and not yet compressed, first in first out, at most `capacity` of them.
struct job_queue {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct job* head;
  struct job* tail;
  int count, capacity, closed;
};

// Compressed blocks not yet written, sorted by seq; `total` is -1 until the reader knows it.
struct write_list {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct job* head;
  long total;
};

struct stats {
  pthread_mutex_t lock;
  long matches, literals;
  atomic_long stored_blocks;
  atomic_llong compressed_bytes;
};

struct stream {
  unsigned char* data;
  size_t len, cap;
};

static const unsigned char* input;
static size_t input_len, block_size = 4 * 1024;
static FILE* out_file;
static struct pool pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL};
static struct job_queue jobs = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0, 0};
static struct write_list done = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, -1};
static struct stats stats = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
static struct stream output;  // the writer's until it is joined
static uint32_t crc_table[256];
static uint32_t output_crc;

static void* xmalloc(size_t size) {
  void* p = malloc(size ? size : 1);
  if (!p) {
    fprintf(stderr, "pcompress: out of memory\n");
    exit(2);
  }
  return p;
}

static uint32_t adler32(const unsigned char* p, size_t n) {
  uint32_t a = 1, b = 0;
  while (n > 0) {
    size_t chunk = n < 5552 ? n : 5552;  // the most bytes before b can overflow 32 bits
    n -= chunk;
    while (chunk--) {
      a += *p++;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return b << 16 | a;
}

static void crc32_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static uint32_t crc32_update(uint32_t crc, const unsigned char* p, size_t n) {
  crc = ~crc;
  while (n--) crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

// Compression emits literal runs and (length, distance) matches within one block; a match's
// candidate is the last position whose 4 bytes hashed alike.
static uint32_t hash4(const unsigned char* p) {
  uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  return (v * 2654435761u) >> (32 - HASH_BITS);
}

static size_t put_literals(const unsigned char* p, size_t n, unsigned char* out, size_t op) {
  while (n > 0) {
    size_t run = n < MAX_LITERALS ? n : MAX_LITERALS;
    out[op++] = (unsigned char)(run - 1);
    memcpy(out + op, p, run);
    op += run;
    p += run;
    n -= run;
  }
  return op;
}

// Compresses in[0..n) into out (room for n + n / MAX_LITERALS + 16 bytes); returns the length.
// `table` holds 1 << HASH_BITS positions plus one, 0 meaning none.
static size_t lz_compress(const unsigned char* in, size_t n, unsigned char* out, uint32_t* table,
                          long* matches, long* literals) {
  size_t ip = 0, op = 0, literal_start = 0;
  memset(table, 0, sizeof(uint32_t) << HASH_BITS);
  while (ip + MIN_MATCH <= n) {
    uint32_t h = hash4(in + ip);
    size_t candidate = table[h];
    table[h] = (uint32_t)(ip + 1);
    if (candidate == 0 || ip - (candidate - 1) > MAX_DISTANCE ||
        memcmp(in + candidate - 1, in + ip, MIN_MATCH) != 0) {
      ip++;
      continue;
    }
    candidate--;
    size_t len = MIN_MATCH;
    while (ip + len < n && len < MAX_MATCH && in[candidate + len] == in[ip + len]) len++;
    *literals += (long)(ip - literal_start);
    op = put_literals(in + literal_start, ip - literal_start, out, op);
    size_t distance = ip - candidate;
    out[op++] = (unsigned char)(0x80 | (len - MIN_MATCH));
    out[op++] = (unsigned char)(distance & 0xff);
    out[op++] = (unsigned char)(distance >> 8);
    (*matches)++;
    ip += len;
    literal_start = ip;
  }
  *literals += (long)(n - literal_start);
  return put_literals(in + literal_start, n - literal_start, out, op);
}

// Decodes in[0..n) into out (room for `cap` bytes); returns the decoded length, or -1 when the
// tokens are malformed.
static long lz_decompress(const unsigned char* in, size_t n, unsigned char* out, size_t cap) {
  size_t ip = 0, op = 0;
  while (ip < n) {
    unsigned tag = in[ip++];
    if (tag < 0x80) {
      size_t run = tag + 1;
      if (run > n - ip || run > cap - op) return -1;
      memcpy(out + op, in + ip, run);
      ip += run;
      op += run;
    } else {
      size_t len = (tag & 0x7f) + MIN_MATCH;
      if (n - ip < 2) return -1;
      size_t distance = in[ip] | (size_t)in[ip + 1] << 8;
      ip += 2;
      if (distance == 0 || distance > op || len > cap - op) return -1;
      for (size_t i = 0; i < len; i++, op++) out[op] = out[op - distance];  // may overlap
    }
  }
  return (long)op;
}

static struct job* pool_get(void) {
  pthread_mutex_lock(&pool.lock);
  while (pool.free == NULL) pthread_cond_wait(&pool.available, &pool.lock);
  struct job* job = pool.free;
  pool.free = job->next;
  pthread_mutex_unlock(&pool.lock);
  return job;
}

static void pool_put(struct job* job) {
  pthread_mutex_lock(&pool.lock);
  job->next = pool.free;
  pool.free = job;
  pthread_cond_signal(&pool.available);
  pthread_mutex_unlock(&pool.lock);
}

static void queue_put(struct job* job) {
  pthread_mutex_lock(&jobs.lock);
  while (jobs.count == jobs.capacity) pthread_cond_wait(&jobs.changed, &jobs.lock);
  job->next = NULL;
  if (jobs.tail)
    jobs.tail->next = job;
  else
    jobs.head = job;
  jobs.tail = job;
  jobs.count++;
  pthread_cond_broadcast(&jobs.changed);
  pthread_mutex_unlock(&jobs.lock);
}

// The next block to compress, or NULL once the reader is done and the queue is empty.
static struct job* queue_get(void) {
  pthread_mutex_lock(&jobs.lock);
  while (jobs.count == 0 && !jobs.closed) pthread_cond_wait(&jobs.changed, &jobs.lock);
  struct job* job = jobs.head;
  if (job) {
    jobs.head = job->next;
    if (jobs.head == NULL) jobs.tail = NULL;
    jobs.count--;
    pthread_cond_broadcast(&jobs.changed);
  }
  pthread_mutex_unlock(&jobs.lock);
  return job;
}

static void queue_close(void) {
  pthread_mutex_lock(&jobs.lock);
  jobs.closed = 1;
  pthread_cond_broadcast(&jobs.changed);
  pthread_mutex_unlock(&jobs.lock);
}

static void done_insert(struct job* job) {
  pthread_mutex_lock(&done.lock);
  struct job** at = &done.head;
  while (*at && (*at)->seq < job->seq) at = &(*at)->next;
  job->next = *at;
  *at = job;
  pthread_cond_signal(&done.changed);
  pthread_mutex_unlock(&done.lock);
}

static void* reader(void* arg) {
  (void)arg;
  long seq = 0;
  for (size_t offset = 0; offset < input_len; offset += block_size, seq++) {
    struct job* job = pool_get();
    job->seq = seq;
    job->in_len = input_len - offset < block_size ? input_len - offset : block_size;
    memcpy(job->in, input + offset, job->in_len);  // as read(2) would fill it
    queue_put(job);
  }
  pthread_mutex_lock(&done.lock);
  done.total = seq;
  pthread_cond_signal(&done.changed);
  pthread_mutex_unlock(&done.lock);
  queue_close();
  return NULL;
}

static void* worker(void* arg) {
  (void)arg;
  uint32_t* table = xmalloc(sizeof(uint32_t) << HASH_BITS);
  struct job* job;
  while ((job = queue_get()) != NULL) {
    long matches = 0, literals = 0;
    job->check = adler32(job->in, job->in_len);
    job->out_len = lz_compress(job->in, job->in_len, job->out, table, &matches, &literals);
    job->stored = job->out_len >= job->in_len;
    if (job->stored) atomic_fetch_add_explicit(&stats.stored_blocks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&stats.compressed_bytes,
                              (long long)(job->stored ? job->in_len : job->out_len),
                              memory_order_relaxed);
    pthread_mutex_lock(&stats.lock);
    stats.matches += matches;
    stats.literals += literals;
    pthread_mutex_unlock(&stats.lock);
    done_insert(job);
  }
  free(table);
  return NULL;
}

static void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void emit(const unsigned char* p, size_t n) {
  if (output.len + n > output.cap) {
    while (output.len + n > output.cap) output.cap = output.cap ? 2 * output.cap : 64 * 1024;
    output.data = realloc(output.data, output.cap);
    if (!output.data) {
      fprintf(stderr, "pcompress: out of memory\n");
      exit(2);
    }
  }
  memcpy(output.data + output.len, p, n);
  output.len += n;
  output_crc = crc32_update(output_crc, p, n);
  if (out_file && fwrite(p, 1, n, out_file) != n) {
    perror("pcompress: write");
    exit(2);
  }
}

static void* writer(void* arg) {
  (void)arg;
  for (long seq = 0;; seq++) {
    pthread_mutex_lock(&done.lock);
    while (!(done.head && done.head->seq == seq) && !(done.total >= 0 && seq >= done.total))
      pthread_cond_wait(&done.changed, &done.lock);
    struct job* job = done.head && done.head->seq == seq ? done.head : NULL;
    if (job) done.head = job->next;
    pthread_mutex_unlock(&done.lock);
    if (!job) break;  // every block written

    unsigned char header[HEADER_BYTES];
    size_t payload = job->stored ? job->in_len : job->out_len;
    put_u32(header, (uint32_t)job->in_len);
    put_u32(header + 4, (uint32_t)payload | (job->stored ? STORED_FLAG : 0));
    put_u32(header + 8, job->check);
    emit(header, HEADER_BYTES);
    emit(job->stored ? job->in : job->out, payload);
    pool_put(job);
  }
  return NULL;
}

// Text-like data: words, numbers and line breaks, with some byte runs and some random noise.
static unsigned char* generate_input(size_t n) {
  static const char* words[] = {"the",    "block",  "worker", "queue",  "compress", "thread",
                                "buffer", "stream", "window", "match",  "literal",  "checksum",
                                "of",     "and",    "a",      "writer", "reader",   "pool"};
  unsigned char* data = xmalloc(n);
  uint64_t state = 0x9e3779b97f4a7c15u;
  size_t i = 0;
  while (i < n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    unsigned pick = (unsigned)(state >> 32);
    char piece[80];
    size_t len;
    if (pick % 50 == 0) {  // a run of one byte
      len = 8 + pick / 50 % 56;
      memset(piece, "-= .#"[pick / 4096 % 5], len);
    } else if (pick % 50 == 1) {  // noise
      len = 16 + pick / 50 % 48;
      for (size_t k = 0; k < len; k++) piece[k] = (char)(state >> (k % 8 * 8) ^ k * 131);
    } else if (pick % 7 == 0) {
      len = (size_t)snprintf(piece, sizeof piece, "%u ", pick / 7 % 100000);
    } else {
      const char* word = words[pick / 16 % (sizeof words / sizeof *words)];
      len = (size_t)snprintf(piece, sizeof piece, "%s%s", word, pick % 11 == 0 ? ".\n" : " ");
    }
    if (len > n - i) len = n - i;
    memcpy(data + i, piece, len);
    i += len;
  }
  return data;
}

static unsigned char* read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  size_t cap = 1 << 20, n = 0;
  unsigned char* data = xmalloc(cap);
  for (size_t got; (got = fread(data + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      data = realloc(data, cap *= 2);
      if (!data) {
        fprintf(stderr, "pcompress: out of memory\n");
        exit(2);
      }
    }
  }
  fclose(f);
  *len = n;
  return data;
}

// Decompresses the stream block by block and compares it with the input; returns the number
// of blocks, or -1 with a message when they differ.
static long verify(const struct stream* s) {
  unsigned char* block = xmalloc(block_size);
  size_t at = 0, offset = 0;
  long blocks = 0;
  for (; at < s->len; blocks++) {
    if (s->len - at < HEADER_BYTES) break;
    size_t raw = get_u32(s->data + at), payload = get_u32(s->data + at + 4) & ~STORED_FLAG;
    int stored = (get_u32(s->data + at + 4) & STORED_FLAG) != 0;
    uint32_t check = get_u32(s->data + at + 8);
    at += HEADER_BYTES;
    if (raw > block_size || payload > s->len - at || raw > input_len - offset) break;
    const unsigned char* got = s->data + at;
    if (!stored) {
      if (lz_decompress(s->data + at, payload, block, block_size) != (long)raw) break;
      got = block;
    }
    if (adler32(got, raw) != check || memcmp(got, input + offset, raw) != 0) break;
    at += payload;
    offset += raw;
  }
  free(block);
  if (at != s->len || offset != input_len) {
    fprintf(stderr, "pcompress: block %ld does not decompress to the input\n", blocks);
    return -1;
  }
  return blocks;
}

int main(int argc, char** argv) {
  int threads = 4;
  size_t input_kib = 64;
  const char* out_path = NULL;
  for (int opt; (opt = getopt(argc, argv, "t:b:n:o:")) != -1;) {
    switch (opt) {
      case 't':
        threads = atoi(optarg);
        break;
      case 'b':
        block_size = (size_t)atol(optarg) * 1024;
        break;
      case 'n':
        input_kib = (size_t)atol(optarg);
        break;
      case 'o':
        out_path = optarg;
        break;
      default:
        fprintf(stderr,
                "usage: pcompress [-t threads] [-b block_kib] [-o out_file] "
                "[-n input_kib | input_file]\n");
        return 2;
    }
  }
  if (threads < 1 || threads > 256 || block_size == 0 || block_size > (1u << 30)) {
    fprintf(stderr, "pcompress: threads must be 1..256 and block_kib 1..1048576\n");
    return 2;
  }
  if (optind < argc) {
    input = read_file(argv[optind], &input_len);
  } else {
    input_len = input_kib * 1024;
    input = generate_input(input_len);
  }
  if (out_path && !(out_file = fopen(out_path, "wb"))) {
    perror(out_path);
    return 2;
  }
  crc32_init();

  int pool_size = 2 * threads + 2;
  for (int i = 0; i < pool_size; i++) {
    struct job* job = xmalloc(sizeof *job);
    job->in = xmalloc(block_size);
    job->out = xmalloc(block_size + block_size / MAX_LITERALS + 16);
    job->next = pool.free;
    pool.free = job;
  }
  jobs.capacity = threads;

  pthread_t reader_thread, writer_thread, *workers = xmalloc(sizeof(pthread_t) * threads);
  pthread_create(&reader_thread, NULL, reader, NULL);
  for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, worker, NULL);
  pthread_create(&writer_thread, NULL, writer, NULL);
  pthread_join(reader_thread, NULL);
  for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
  pthread_join(writer_thread, NULL);
  if (out_file && fclose(out_file) != 0) {
    perror(out_path);
    return 2;
  }

  long blocks = verify(&output);
  if (blocks < 0) return 1;
  printf(
      "pcompress: %zu -> %zu bytes in %ld blocks (%ld stored), %ld matches, %ld literals, "
      "adler32 %08x, crc32 %08x, verified\n",
      input_len, output.len, blocks, atomic_load(&stats.stored_blocks), stats.matches,
      stats.literals, adler32(input, input_len), output_crc);

  while (pool.free) {
    struct job* job = pool.free;
    pool.free = job->next;
    free(job->in);
    free(job->out);
    free(job);
  }
  free(workers);
  free(output.data);
  free((void*)input);
  return 0;
}

/*
 * parquet-core's rendering of the Apache Parquet file format metadata IDL.
 *
 * Field ids, names, types and enum values follow the Apache Parquet format
 * specification (apache/parquet-format, src/main/thrift/parquet.thrift) and
 * must never be changed: they are the wire format.  The comments are our own
 * short summaries; the specification remains the authority on semantics.
 *
 * Every struct is serialized with the Thrift COMPACT protocol.  Readers must
 * skip field ids and union members they do not know, so this file may lag
 * behind the specification without breaking anything.
 *
 * Synced with apache/parquet-format commit
 * 24102ed5c56e51b610a4897e5f79e76e43732d1d (2026-08-19): FILE is LogicalType
 * 19, ALP is Encoding 10; the unreleased VECTOR proposal is not included.
 *
 * Regenerate the Python bindings (see README.md in this directory):
 *     thrift --gen py -out . thrift_defs/parquet.thrift
 */

namespace py parquet_core.thrift.generated
namespace cpp parquet
namespace java org.apache.parquet.format

// ---------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------

/** Physical (storage) types.  Narrow integers are stored as INT32. */
enum Type {
  BOOLEAN = 0;
  INT32 = 1;
  INT64 = 2;
  INT96 = 3;                // legacy timestamps only; do not write in new files
  FLOAT = 4;
  DOUBLE = 5;
  BYTE_ARRAY = 6;
  FIXED_LEN_BYTE_ARRAY = 7;
}

/**
 * Legacy annotations, kept for old readers.  New files describe columns with
 * LogicalType and also set the matching ConvertedType where one exists.
 * This enum is frozen.
 */
enum ConvertedType {
  UTF8 = 0;                 // BYTE_ARRAY holding UTF-8 text
  MAP = 1;                  // group holding a repeated key/value group
  MAP_KEY_VALUE = 2;        // the repeated key/value group of a MAP
  LIST = 3;                 // group holding a repeated element field
  ENUM = 4;                 // BYTE_ARRAY holding an enum symbol
  DECIMAL = 5;              // unscaled integer; scale/precision on the element
  DATE = 6;                 // INT32 days since 1970-01-01
  TIME_MILLIS = 7;          // INT32 milliseconds since midnight
  TIME_MICROS = 8;          // INT64 microseconds since midnight
  TIMESTAMP_MILLIS = 9;     // INT64 milliseconds since the Unix epoch
  TIMESTAMP_MICROS = 10;    // INT64 microseconds since the Unix epoch
  UINT_8 = 11;              // unsigned integers: INT32 for 8/16/32 bits,
  UINT_16 = 12;             //   INT64 for 64 bits
  UINT_32 = 13;
  UINT_64 = 14;
  INT_8 = 15;               // signed integers, same storage rule as UINT_*
  INT_16 = 16;
  INT_32 = 17;
  INT_64 = 18;
  JSON = 19;                // UTF-8 JSON text
  BSON = 20;                // BSON document bytes
  INTERVAL = 21;            // FIXED[12]: LE uint32 months, days, millis
}

/** How often a schema node occurs inside its parent. */
enum FieldRepetitionType {
  REQUIRED = 0;             // exactly once, never null
  OPTIONAL = 1;             // zero or one time (nullable)
  REPEATED = 2;             // zero or more times
}

/**
 * Value encodings; RLE and BIT_PACKED are also used for levels.
 * Id 1 (GROUP_VAR_INT) was never used and is retired.
 */
enum Encoding {
  PLAIN = 0;                    // fixed-width LE values; BYTE_ARRAY has a 4-byte LE length
  PLAIN_DICTIONARY = 2;         // deprecated spelling of a dictionary encoding
  RLE = 3;                      // RLE / bit-packing hybrid
  BIT_PACKED = 4;               // deprecated, levels only
  DELTA_BINARY_PACKED = 5;      // delta-coded integers in bit-packed miniblocks
  DELTA_LENGTH_BYTE_ARRAY = 6;  // delta-coded lengths, then the concatenated bytes
  DELTA_BYTE_ARRAY = 7;         // shared-prefix lengths plus suffixes
  RLE_DICTIONARY = 8;           // dictionary indices with the RLE hybrid
  BYTE_STREAM_SPLIT = 9;        // value bytes scattered into K byte streams
  ALP = 10;                     // FLOAT/DOUBLE: decimal scaling + frame of reference (AlpEncoding.md)
}

/** Page compression codecs. */
enum CompressionCodec {
  UNCOMPRESSED = 0;
  SNAPPY = 1;
  GZIP = 2;
  LZO = 3;
  BROTLI = 4;
  LZ4 = 5;                  // deprecated Hadoop-framed LZ4
  ZSTD = 6;
  LZ4_RAW = 7;              // plain LZ4 block format
}

enum PageType {
  DATA_PAGE = 0;
  INDEX_PAGE = 1;
  DICTIONARY_PAGE = 2;
  DATA_PAGE_V2 = 3;
}

/** Whether the per-page bounds in a ColumnIndex are sorted, and which way. */
enum BoundaryOrder {
  UNORDERED = 0;
  ASCENDING = 1;
  DESCENDING = 2;
}

/** How edges between two GEOGRAPHY vertices are interpolated. */
enum EdgeInterpolationAlgorithm {
  SPHERICAL = 0;
  VINCENTY = 1;
  THOMAS = 2;
  ANDOYER = 3;
  KARNEY = 4;
}

// ---------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------

/**
 * Size hints for a column chunk or page: how large the data is before
 * encoding, plus histograms of repetition and definition levels.
 */
struct SizeStatistics {
  /** BYTE_ARRAY only: total payload bytes, not counting length prefixes. */
  1: optional i64 unencoded_byte_array_data_bytes;
  /** Count per repetition level (max_repetition_level + 1 entries). */
  2: optional list<i64> repetition_level_histogram;
  /** Count per definition level (max_definition_level + 1 entries). */
  3: optional list<i64> definition_level_histogram;
}

/** Coordinate ranges covered by GEOMETRY / GEOGRAPHY values. */
struct BoundingBox {
  1: required double xmin;
  2: required double xmax;
  3: required double ymin;
  4: required double ymax;
  5: optional double zmin;
  6: optional double zmax;
  7: optional double mmin;
  8: optional double mmax;
}

/** Statistics for GEOMETRY / GEOGRAPHY columns. */
struct GeospatialStatistics {
  1: optional BoundingBox bbox;
  /** WKB geometry type codes present; empty means unknown. */
  2: optional list<i32> geospatial_types;
}

/**
 * Statistics of a column chunk or page.  Bound values are PLAIN encoded,
 * except that BYTE_ARRAY values carry no length prefix.
 */
struct Statistics {
  /** Deprecated bounds, always in signed order; prefer max_value/min_value. */
  1: optional binary max;
  2: optional binary min;
  /** Number of nulls.  Absent means unknown, not zero. */
  3: optional i64 null_count;
  /** Number of distinct values. */
  4: optional i64 distinct_count;
  /** Upper and lower bound under the column's ColumnOrder (may be inexact). */
  5: optional binary max_value;
  6: optional binary min_value;
  /** True when max_value is the real maximum, not just a bound. */
  7: optional bool is_max_value_exact;
  /** True when min_value is the real minimum, not just a bound. */
  8: optional bool is_min_value_exact;
  /** Number of NaNs (FLOAT, DOUBLE, FLOAT16).  Absent means unknown. */
  9: optional i64 nan_count;
}

// ---------------------------------------------------------------------------
// Logical types
// ---------------------------------------------------------------------------

struct StringType {}        // BYTE_ARRAY, UTF-8
struct UUIDType {}          // FIXED[16], raw big-endian UUID bytes
struct MapType {}           // see LogicalTypes.md
struct ListType {}          // see LogicalTypes.md
struct EnumType {}          // BYTE_ARRAY, UTF-8
struct DateType {}          // INT32
struct Float16Type {}       // FIXED[2], IEEE half precision, little-endian

/** Annotates a column known only to hold nulls; any physical type. */
struct NullType {}

/**
 * Fixed-point decimal: unscaled integer times 10^-scale.
 * Physical types INT32, INT64, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY.
 * 0 <= scale <= precision, precision > 0.
 */
struct DecimalType {
  1: required i32 scale
  2: required i32 precision
}

/** Units of TIME and TIMESTAMP. */
struct MilliSeconds {}
struct MicroSeconds {}
struct NanoSeconds {}
union TimeUnit {
  1: MilliSeconds MILLIS
  2: MicroSeconds MICROS
  3: NanoSeconds NANOS
}

/** Instant or local date-time; physical type INT64. */
struct TimestampType {
  1: required bool isAdjustedToUTC
  2: required TimeUnit unit
}

/** Time of day; INT32 for MILLIS, INT64 for MICROS and NANOS. */
struct TimeType {
  1: required bool isAdjustedToUTC
  2: required TimeUnit unit
}

/** Integer of 8, 16, 32 or 64 bits; physical type INT32 or INT64. */
struct IntType {
  1: required i8 bitWidth
  2: required bool isSigned
}

/** JSON text; physical type BYTE_ARRAY. */
struct JsonType {
}

/** BSON document; physical type BYTE_ARRAY. */
struct BsonType {
}

/** Semi-structured Variant value (metadata + value binary group). */
struct VariantType {
  /** Version of the Variant encoding specification used by the writer. */
  1: optional i8 specification_version
}

/**
 * WKB geometry with planar edges; BYTE_ARRAY.  crs defaults to OGC:CRS84.
 */
struct GeometryType {
  1: optional string crs;
}

/**
 * WKB geography with non-planar edges; BYTE_ARRAY.  crs defaults to
 * OGC:CRS84, algorithm defaults to SPHERICAL.
 */
struct GeographyType {
  1: optional string crs;
  2: optional EdgeInterpolationAlgorithm algorithm;
}

/**
 * Group describing a byte range: inline bytes, a range of this file, or an
 * external object named by URI.  The group's fields are identified by name
 * (LogicalTypes.md, "FILE"); the annotation itself carries no parameters.
 */
struct FileType {
}

/**
 * The modern column annotation.  Members carry the matching legacy
 * ConvertedType in their comment where one exists.
 */
union LogicalType {
  1:  StringType STRING         // UTF8
  2:  MapType MAP               // MAP
  3:  ListType LIST             // LIST
  4:  EnumType ENUM             // ENUM
  5:  DecimalType DECIMAL       // DECIMAL (+ scale/precision on the element)
  6:  DateType DATE             // DATE
  7:  TimeType TIME             // TIME_MILLIS / TIME_MICROS
  8:  TimestampType TIMESTAMP   // TIMESTAMP_MILLIS / TIMESTAMP_MICROS
  // 9 is reserved for a future INTERVAL
  10: IntType INTEGER           // INT_* / UINT_*
  11: NullType UNKNOWN          // none
  12: JsonType JSON             // JSON
  13: BsonType BSON             // BSON
  14: UUIDType UUID             // none
  15: Float16Type FLOAT16       // none
  16: VariantType VARIANT       // none
  17: GeometryType GEOMETRY     // none
  18: GeographyType GEOGRAPHY   // none
  19: FileType FILE             // none
}

// ---------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------

/**
 * One node of the schema tree.  The tree is stored flattened, depth first;
 * groups set num_children, leaves set type.
 */
struct SchemaElement {
  /** Physical type; unset on groups. */
  1: optional Type type;
  /** Byte width for FIXED_LEN_BYTE_ARRAY; otherwise an optional bit-width hint. */
  2: optional i32 type_length;
  /** Unset only on the root. */
  3: optional FieldRepetitionType repetition_type;
  4: required string name;
  /** Number of direct children; unset on leaves. */
  5: optional i32 num_children;
  /** Legacy annotation (see LogicalType). */
  6: optional ConvertedType converted_type;
  /** Legacy decimal parameters, still written for old readers. */
  7: optional i32 scale
  8: optional i32 precision
  /** Field id carried over from the writer's data model. */
  9: optional i32 field_id;
  10: optional LogicalType logicalType
}

// ---------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------

/** Header of a version 1 data page. */
struct DataPageHeader {
  /** Values in the page, nulls included. */
  1: required i32 num_values
  2: required Encoding encoding
  3: required Encoding definition_level_encoding;
  4: required Encoding repetition_level_encoding;
  5: optional Statistics statistics;
}

/** Reserved; no content defined yet. */
struct IndexPageHeader {
}

/** Header of the (single, first) dictionary page of a column chunk. */
struct DictionaryPageHeader {
  1: required i32 num_values;
  2: required Encoding encoding
  /** True when the entries are in ascending order. */
  3: optional bool is_sorted;
}

/**
 * Header of a version 2 data page.  Levels come first, RLE encoded without
 * a length prefix and never compressed; only the values section may be.
 */
struct DataPageHeaderV2 {
  /** Values in the page, nulls included. */
  1: required i32 num_values
  2: required i32 num_nulls
  /** Rows in the page; V2 pages always start and end on row boundaries. */
  3: required i32 num_rows
  4: required Encoding encoding
  5: required i32 definition_levels_byte_length;
  6: required i32 repetition_levels_byte_length;
  /** Whether the values section is compressed; absent means true. */
  7: optional bool is_compressed = true;
  8: optional Statistics statistics;
}

// ---------------------------------------------------------------------------
// Bloom filters
// ---------------------------------------------------------------------------

/** Split-block Bloom filter. */
struct SplitBlockAlgorithm {}
union BloomFilterAlgorithm {
  1: SplitBlockAlgorithm BLOCK;
}

/** 64-bit xxHash (XXH64, seed 0) of the PLAIN-encoded value. */
struct XxHash {}
union BloomFilterHash {
  1: XxHash XXHASH;
}

struct Uncompressed {}
union BloomFilterCompression {
  1: Uncompressed UNCOMPRESSED;
}

/** Precedes the bitset of a column chunk's Bloom filter. */
struct BloomFilterHeader {
  /** Bitset size in bytes. */
  1: required i32 numBytes;
  2: required BloomFilterAlgorithm algorithm;
  3: required BloomFilterHash hash;
  4: required BloomFilterCompression compression;
}

/** Precedes every page; exactly one of the *_header fields matches `type`. */
struct PageHeader {
  1: required PageType type
  /** Page body size before compression, header excluded. */
  2: required i32 uncompressed_page_size
  /** Page body size as stored (compressed, maybe encrypted), header excluded. */
  3: required i32 compressed_page_size
  /** Standard CRC-32 of the stored page body (after compression/encryption). */
  4: optional i32 crc
  5: optional DataPageHeader data_page_header;
  6: optional IndexPageHeader index_page_header;
  7: optional DictionaryPageHeader dictionary_page_header;
  8: optional DataPageHeaderV2 data_page_header_v2;
}

// ---------------------------------------------------------------------------
// Column chunks, row groups
// ---------------------------------------------------------------------------

/** One key/value metadata entry. */
struct KeyValue {
  1: required string key
  2: optional string value
}

/** One sort key of a row group. */
struct SortingColumn {
  /** Index of the leaf column within the row group. */
  1: required i32 column_idx
  2: required bool descending
  /** True when nulls sort before all values. */
  3: required bool nulls_first
}

/** Number of pages of one type written with one encoding. */
struct PageEncodingStats {
  1: required PageType page_type;
  2: required Encoding encoding;
  3: required i32 count;
}

/** Metadata of one column chunk. */
struct ColumnMetaData {
  1: required Type type
  /** Every encoding used by the chunk's pages (levels included). */
  2: required list<Encoding> encodings
  /** Names from the root (excluded) down to the leaf. */
  3: required list<string> path_in_schema
  4: required CompressionCodec codec
  /** Values in the chunk, nulls included. */
  5: required i64 num_values
  /** Sum of page sizes before compression, headers included. */
  6: required i64 total_uncompressed_size
  /** Sum of stored page sizes, headers included. */
  7: required i64 total_compressed_size
  8: optional list<KeyValue> key_value_metadata
  /** File offset of the first data page. */
  9: required i64 data_page_offset
  /** File offset of the root index page (unused in practice). */
  10: optional i64 index_page_offset
  /** File offset of the dictionary page, if any. */
  11: optional i64 dictionary_page_offset
  12: optional Statistics statistics;
  13: optional list<PageEncodingStats> encoding_stats;
  /** File offset of the Bloom filter header. */
  14: optional i64 bloom_filter_offset;
  /** Bloom filter size in bytes, header included. */
  15: optional i32 bloom_filter_length;
  16: optional SizeStatistics size_statistics;
  17: optional GeospatialStatistics geospatial_statistics;
}

/** Column encrypted with the footer key. */
struct EncryptionWithFooterKey {
}

/** Column encrypted with its own key. */
struct EncryptionWithColumnKey {
  1: required list<string> path_in_schema
  /** Opaque data that lets a key manager find the column key. */
  2: optional binary key_metadata
}

union ColumnCryptoMetaData {
  1: EncryptionWithFooterKey ENCRYPTION_WITH_FOOTER_KEY
  2: EncryptionWithColumnKey ENCRYPTION_WITH_COLUMN_KEY
}

/** Where one column chunk lives and how to read it. */
struct ColumnChunk {
  /** Path of an external file holding the data (summary files only). */
  1: optional string file_path
  /** Deprecated; writers put 0. */
  2: required i64 file_offset = 0
  /** Optional in the IDL but required by practically every reader. */
  3: optional ColumnMetaData meta_data
  4: optional i64 offset_index_offset
  5: optional i32 offset_index_length
  6: optional i64 column_index_offset
  7: optional i32 column_index_length
  8: optional ColumnCryptoMetaData crypto_metadata
  /** Serialized ColumnMetaData, encrypted with the column key. */
  9: optional binary encrypted_column_metadata
}

struct RowGroup {
  /** One chunk per leaf column, in schema order. */
  1: required list<ColumnChunk> columns
  /** Sum of uncompressed column data sizes. */
  2: required i64 total_byte_size
  3: required i64 num_rows
  4: optional list<SortingColumn> sorting_columns
  /** File offset of the first page of the row group. */
  5: optional i64 file_offset
  /** Sum of stored column data sizes. */
  6: optional i64 total_compressed_size
  /** Position of the row group in the file. */
  7: optional i16 ordinal
}

// ---------------------------------------------------------------------------
// Column orders (meaning of min/max statistics)
// ---------------------------------------------------------------------------

/** Order given by the logical type, or the physical type if none. */
struct TypeDefinedOrder {}

/** IEEE 754 totalOrder for FLOAT, DOUBLE and FLOAT16. */
struct IEEE754TotalOrder {}

/** Chronological order for INT96 timestamps. */
struct Int96TimestampOrder {}

/**
 * Order used for the statistics bounds of one leaf column.  Statistics of a
 * column whose order a reader does not recognise must be ignored.
 *
 * TYPE_ORDER on FLOAT/DOUBLE/FLOAT16: bounds never hold NaN and exclude NaNs;
 * nan_count is always written; no bounds when every non-null value is NaN (and
 * no column index when a page is all NaN); a zero max is written +0.0 and a
 * zero min -0.0.  Readers ignore NaN bounds and widen +0/-0 bounds to both zeros.
 * TYPE_ORDER on INT96: readers ignore the bounds.
 *
 * IEEE_754_TOTAL_ORDER (FLOAT/DOUBLE/FLOAT16 only): totalOrder of IEEE 754-2008
 * 5.10 (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN); nan_count is
 * mandatory; bounds are the extreme non-NaN values, or the extreme NaNs when
 * every non-null value is NaN.  In a column index a NaN bound therefore means
 * the page's non-null values are all NaN.
 *
 * INT96_TIMESTAMP_ORDER (INT96 only): chronological, i.e. by the signed
 * little-endian int32 day in bytes 8..11, then the signed little-endian int64
 * nanoseconds in bytes 0..7.
 */
union ColumnOrder {
  1: TypeDefinedOrder TYPE_ORDER;
  2: IEEE754TotalOrder IEEE_754_TOTAL_ORDER;
  3: Int96TimestampOrder INT96_TIMESTAMP_ORDER;
}

// ---------------------------------------------------------------------------
// Page index
// ---------------------------------------------------------------------------

struct PageLocation {
  /** File offset of the page header. */
  1: required i64 offset
  /** Header plus stored body size. */
  2: required i32 compressed_page_size
  /** Row-group-relative index of the page's first row. */
  3: required i64 first_row_index
}

/** Locations of the data pages of a column chunk. */
struct OffsetIndex {
  /** Sorted by offset, first_row_index strictly increasing. */
  1: required list<PageLocation> page_locations
  /** Per page, as SizeStatistics.unencoded_byte_array_data_bytes. */
  2: optional list<i64> unencoded_byte_array_data_bytes
}

/** Per-page statistics of a column chunk; entry i is page i of its OffsetIndex. */
struct ColumnIndex {
  /** True for pages holding only nulls (their bounds are empty). */
  1: required list<bool> null_pages
  /** Per-page lower and upper bounds under the column's order. */
  2: required list<binary> min_values
  3: required list<binary> max_values
  4: required BoundaryOrder boundary_order
  /** Per-page null counts.  Absent means unknown. */
  5: optional list<i64> null_counts
  /** Per-page repetition level histograms, concatenated. */
  6: optional list<i64> repetition_level_histograms;
  /** Per-page definition level histograms, concatenated. */
  7: optional list<i64> definition_level_histograms;
  /** Per-page NaN counts (FLOAT, DOUBLE, FLOAT16). */
  8: optional list<i64> nan_counts
}

// ---------------------------------------------------------------------------
// Encryption
// ---------------------------------------------------------------------------

/** AES-GCM for every module. */
struct AesGcmV1 {
  /** AAD prefix, when stored in the file. */
  1: optional binary aad_prefix
  /** Per-file unique part of the AAD suffix. */
  2: optional binary aad_file_unique
  /** True when the reader must supply the (unstored) AAD prefix. */
  3: optional bool supply_aad_prefix
}

/** AES-GCM for metadata, AES-CTR for page bodies. */
struct AesGcmCtrV1 {
  1: optional binary aad_prefix
  2: optional binary aad_file_unique
  3: optional bool supply_aad_prefix
}

union EncryptionAlgorithm {
  1: AesGcmV1 AES_GCM_V1
  2: AesGcmCtrV1 AES_GCM_CTR_V1
}

// ---------------------------------------------------------------------------
// Footer
// ---------------------------------------------------------------------------

/** The file footer. */
struct FileMetaData {
  /** Format version; write 1, accept 1 and 2. */
  1: required i32 version
  /** Flattened schema tree; element 0 is the root. */
  2: required list<SchemaElement> schema;
  3: required i64 num_rows
  4: required list<RowGroup> row_groups
  5: optional list<KeyValue> key_value_metadata
  /** Writer identification, "<app> version <ver> (build <hash>)". */
  6: optional string created_by
  /** One entry per leaf column, in schema order. */
  7: optional list<ColumnOrder> column_orders;
  /** Set only in encrypted files with a plaintext footer. */
  8: optional EncryptionAlgorithm encryption_algorithm
  /** Key metadata for the footer signature (plaintext footer only). */
  9: optional binary footer_signing_key_metadata
}

/** Precedes an encrypted footer ("PARE" files). */
struct FileCryptoMetaData {
  1: required EncryptionAlgorithm encryption_algorithm
  /** Key metadata for the footer key. */
  2: optional binary key_metadata
}

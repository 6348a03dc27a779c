// The OTLP messages that an OTLP/HTTP trace export carries, for OtlpReceiver to decode with protobufjs:
// the definitions of four files of opentelemetry-proto v1.11.0 (the specification's own repository,
// tag v1.11.0, commit 790608c4d51e6ffc12210b541e8514cbed9e91a4; Copyright 2019, OpenTelemetry
// Authors; Apache License 2.0), each file's statements as published, its comments left out. No npm
// package ships these .proto files, and a module (rather than .proto files read from disk) keeps them
// with the code when the bench bundles it (bench/run.mjs). To update: copy the four files' statements
// from a newer tag.

/** Each file by its path in opentelemetry-proto, in the order of their imports. */
export const OTLP_TRACE_PROTOS: Record<string, string> = {
  'opentelemetry/proto/common/v1/common.proto': `
syntax = "proto3";

package opentelemetry.proto.common.v1;

option csharp_namespace = "OpenTelemetry.Proto.Common.V1";
option java_multiple_files = true;
option java_package = "io.opentelemetry.proto.common.v1";
option java_outer_classname = "CommonProto";
option go_package = "go.opentelemetry.io/proto/otlp/common/v1";

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
    int32 string_value_strindex = 8;
  }
}

message ArrayValue {
  repeated AnyValue values = 1;
}

message KeyValueList {
  repeated KeyValue values = 1;
}

message KeyValue {
  string key = 1;

  AnyValue value = 2;

  int32 key_strindex = 3;
}

message InstrumentationScope {
  string name = 1;

  string version = 2;

  repeated KeyValue attributes = 3;

  uint32 dropped_attributes_count = 4;
}

message EntityRef {
  string schema_url = 1;

  string type = 2;

  repeated string id_keys = 3;

  repeated string description_keys = 4;
}
`,
  'opentelemetry/proto/resource/v1/resource.proto': `
syntax = "proto3";

package opentelemetry.proto.resource.v1;

import "opentelemetry/proto/common/v1/common.proto";

option csharp_namespace = "OpenTelemetry.Proto.Resource.V1";
option java_multiple_files = true;
option java_package = "io.opentelemetry.proto.resource.v1";
option java_outer_classname = "ResourceProto";
option go_package = "go.opentelemetry.io/proto/otlp/resource/v1";

message Resource {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 1;

  uint32 dropped_attributes_count = 2;

  repeated opentelemetry.proto.common.v1.EntityRef entity_refs = 3;
}
`,
  'opentelemetry/proto/trace/v1/trace.proto': `
syntax = "proto3";

package opentelemetry.proto.trace.v1;

import "opentelemetry/proto/common/v1/common.proto";
import "opentelemetry/proto/resource/v1/resource.proto";

option csharp_namespace = "OpenTelemetry.Proto.Trace.V1";
option java_multiple_files = true;
option java_package = "io.opentelemetry.proto.trace.v1";
option java_outer_classname = "TraceProto";
option go_package = "go.opentelemetry.io/proto/otlp/trace/v1";

message TracesData {
  repeated ResourceSpans resource_spans = 1;
}

message ResourceSpans {
  reserved 1000;

  opentelemetry.proto.resource.v1.Resource resource = 1;

  repeated ScopeSpans scope_spans = 2;

  string schema_url = 3;
}

message ScopeSpans {
  opentelemetry.proto.common.v1.InstrumentationScope scope = 1;

  repeated Span spans = 2;

  string schema_url = 3;
}

message Span {
  bytes trace_id = 1;

  bytes span_id = 2;

  string trace_state = 3;

  bytes parent_span_id = 4;

  fixed32 flags = 16;

  string name = 5;

  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;

    SPAN_KIND_INTERNAL = 1;

    SPAN_KIND_SERVER = 2;

    SPAN_KIND_CLIENT = 3;

    SPAN_KIND_PRODUCER = 4;

    SPAN_KIND_CONSUMER = 5;
  }

  SpanKind kind = 6;

  fixed64 start_time_unix_nano = 7;

  fixed64 end_time_unix_nano = 8;

  repeated opentelemetry.proto.common.v1.KeyValue attributes = 9;

  uint32 dropped_attributes_count = 10;

  message Event {
    fixed64 time_unix_nano = 1;

    string name = 2;

    repeated opentelemetry.proto.common.v1.KeyValue attributes = 3;

    uint32 dropped_attributes_count = 4;
  }

  repeated Event events = 11;

  uint32 dropped_events_count = 12;

  message Link {
    bytes trace_id = 1;

    bytes span_id = 2;

    string trace_state = 3;

    repeated opentelemetry.proto.common.v1.KeyValue attributes = 4;

    uint32 dropped_attributes_count = 5;

    fixed32 flags = 6;
  }

  repeated Link links = 13;

  uint32 dropped_links_count = 14;

  Status status = 15;
}

message Status {
  reserved 1;

  string message = 2;

  enum StatusCode {
    STATUS_CODE_UNSET               = 0;
    STATUS_CODE_OK                  = 1;
    STATUS_CODE_ERROR               = 2;
  };

  StatusCode code = 3;
}

enum SpanFlags {
  SPAN_FLAGS_DO_NOT_USE = 0;

  SPAN_FLAGS_TRACE_FLAGS_MASK = 0x000000FF;

  SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK = 0x00000100;
  SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK = 0x00000200;

}
`,
  'opentelemetry/proto/collector/trace/v1/trace_service.proto': `
syntax = "proto3";

package opentelemetry.proto.collector.trace.v1;

import "opentelemetry/proto/trace/v1/trace.proto";

option csharp_namespace = "OpenTelemetry.Proto.Collector.Trace.V1";
option java_multiple_files = true;
option java_package = "io.opentelemetry.proto.collector.trace.v1";
option java_outer_classname = "TraceServiceProto";
option go_package = "go.opentelemetry.io/proto/otlp/collector/trace/v1";

service TraceService {
  rpc Export(ExportTraceServiceRequest) returns (ExportTraceServiceResponse) {}
}

message ExportTraceServiceRequest {
  repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1;
}

message ExportTraceServiceResponse {
  ExportTracePartialSuccess partial_success = 1;
}

message ExportTracePartialSuccess {
  int64 rejected_spans = 1;

  string error_message = 2;
}
`,
};

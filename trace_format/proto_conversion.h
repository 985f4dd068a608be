// Conversions between the in-memory trace types (trace.h) and their protobuf messages
// (proto/trace.proto), plus the dense-id rule for table entries read from a file.
#pragma once

#include <string>

#include "proto/trace.pb.h"
#include "trace_format/trace.h"

namespace pecan {

// The tables of a trace, as a reader accumulates them or a writer keeps them for the footer.
struct TraceTables {
  std::vector<ThreadInfo> threads;
  std::vector<SiteInfo> sites;
  std::vector<ModuleInfo> modules;
  std::vector<AddressName> names;
};

proto::ThreadInfo ThreadToProto(ThreadId id, const ThreadInfo& info);
proto::Site SiteToProto(SiteId id, const SiteInfo& info);
proto::Module ModuleToProto(const ModuleInfo& module);
proto::AddressName NameToProto(const AddressName& name);
ModuleInfo ModuleFromProto(const proto::Module& module);
AddressName NameFromProto(const proto::AddressName& name);

proto::BlockedThread BlockedToProto(const BlockedThreadInfo& blocked);
// Throws PecanError prefixed with `where` when a thread or site id is not in `tables`.
BlockedThreadInfo BlockedFromProto(const proto::BlockedThread& blocked, const TraceTables& tables,
                                   const std::string& where);

proto::TraceHeader HeaderFromMeta(const TraceMeta& meta);
// Fills everything the header knows; the exit and dropped counts come from the footer.
void MetaFromHeader(const proto::TraceHeader& header, TraceMeta& meta);

// Adds table entries to `tables`. Each thread/site id must replace an existing entry or be the
// next one (ids stay dense, so a damaged id cannot make the table huge); otherwise throws
// PecanError prefixed with `where`.
void ApplyTableEntries(const google::protobuf::RepeatedPtrField<proto::ThreadInfo>& threads,
                       const google::protobuf::RepeatedPtrField<proto::Site>& sites,
                       const google::protobuf::RepeatedPtrField<proto::Module>& modules,
                       const google::protobuf::RepeatedPtrField<proto::AddressName>& names,
                       TraceTables& tables, const std::string& where);

}  // namespace pecan

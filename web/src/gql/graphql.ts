/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type ActivityKind =
  | 'APPENDED'
  | 'CREATED'
  | 'LEAF_MOVED'
  | 'RENAMED';

export type EntryType =
  | 'ACTIVE_TOOLS_CHANGE'
  | 'BRANCH_SUMMARY'
  | 'COMPACTION'
  | 'CONTEXT_EDIT'
  | 'CUSTOM'
  | 'CUSTOM_MESSAGE'
  | 'LABEL'
  | 'LEAF'
  | 'MESSAGE'
  | 'MODEL_CHANGE'
  /** A type the service does not know (a later pi's): Entry.typeName names it. */
  | 'OTHER'
  | 'SESSION_INFO'
  | 'THINKING_LEVEL_CHANGE'
  | 'USAGE';

/** What a metrics row adds up (see MeasureValues). */
export type Measure =
  | 'ACTIVE_SESSIONS'
  | 'ASSISTANT_TURNS'
  | 'ASSISTANT_TURN_COST'
  | 'ASSISTANT_TURN_DURATION_MS'
  | 'ASSISTANT_TURN_TOKENS'
  | 'AVG_ASSISTANT_TURN_DURATION_MS'
  | 'AVG_COST_PER_ASSISTANT_TURN'
  | 'AVG_TOTAL_TOKENS_PER_ASSISTANT_TURN'
  | 'BRANCH_SUMMARIES'
  | 'CACHE_READ_TOKENS'
  | 'CACHE_WRITE_TOKENS'
  | 'COMPACTIONS'
  | 'COST'
  | 'ENTRIES'
  | 'FORKS'
  | 'INPUT_TOKENS'
  | 'LABELS'
  | 'LEAF_MOVES'
  | 'MAX_ASSISTANT_TURN_DURATION_MS'
  | 'MAX_COST_PER_ASSISTANT_TURN'
  | 'MAX_TOTAL_TOKENS_PER_ASSISTANT_TURN'
  | 'MESSAGES'
  | 'MIN_ASSISTANT_TURN_DURATION_MS'
  | 'MIN_COST_PER_ASSISTANT_TURN'
  | 'MIN_TOTAL_TOKENS_PER_ASSISTANT_TURN'
  | 'OUTPUT_TOKENS'
  | 'P50_ASSISTANT_TURN_DURATION_MS'
  | 'P50_COST_PER_ASSISTANT_TURN'
  | 'P50_TOTAL_TOKENS_PER_ASSISTANT_TURN'
  | 'P95_ASSISTANT_TURN_DURATION_MS'
  | 'P95_COST_PER_ASSISTANT_TURN'
  | 'P95_TOTAL_TOKENS_PER_ASSISTANT_TURN'
  | 'SESSIONS_CREATED'
  | 'TIMED_ASSISTANT_TURNS'
  | 'TOOL_CALLS'
  | 'TOOL_ERRORS'
  | 'TOOL_RESULTS'
  | 'TOTAL_TOKENS'
  | 'USER_TURNS';

/** What metrics rows are grouped by. */
export type MetricsDimension =
  | 'AUTHOR'
  | 'ENTRY_TYPE'
  | 'MODEL'
  | 'PROVIDER'
  | 'ROLE'
  | 'SESSION'
  | 'TIME'
  | 'TOOL_NAME';

export type MetricsFilter = {
  /** Sessions whose cwd starts with this. */
  cwdPrefix?: string | null | undefined;
  /** Inclusive; on a quarter hour. */
  from?: string | null | undefined;
  /** Keeps the assistant messages of these models. */
  models?: Array<string> | null | undefined;
  /** Keeps the assistant messages of these providers. */
  providers?: Array<string> | null | undefined;
  sessionIds?: Array<string> | null | undefined;
  /** Exclusive; on a quarter hour. */
  to?: string | null | undefined;
};

/** Order by one asked measure or one grouped dimension (exactly one of them). */
export type MetricsOrder = {
  descending?: boolean | null | undefined;
  dimension?: MetricsDimension | null | undefined;
  measure?: Measure | null | undefined;
};

export type MetricsQuery = {
  dimensions?: Array<MetricsDimension> | null | undefined;
  filter?: MetricsFilter | null | undefined;
  granularity?: TimeGranularity | null | undefined;
  /** At most 10,000 rows. */
  limit?: number | null | undefined;
  measures: Array<Measure>;
  /** Then by every dimension ascending, so the order is total. */
  orderBy?: Array<MetricsOrder> | null | undefined;
  /** IANA zone in which days, weeks (from Monday) and months start. */
  timeZone?: string | null | undefined;
};

export type SessionOrderField =
  /** Last activity (updatedAt). */
  | 'ACTIVITY'
  /** Sum of the assistant messages' usage.cost.total over the whole tree. */
  | 'COST'
  | 'CREATED'
  /** Entries in the log (every branch). */
  | 'ENTRIES'
  /** Sum of the assistant messages' total tokens over the whole tree. */
  | 'TOKENS';

export type SetPresenceInput = {
  /** Null clears the focus. */
  focusEntryId?: string | null | undefined;
  sessionId: string;
  /** The `Presence.viewerId` of the caller's subscription. */
  viewerId: string;
};

/** The length of a TIME bucket. */
export type TimeGranularity =
  | 'DAY'
  | 'HOUR'
  | 'MONTH'
  | 'WEEK';

type CompareEntry_ActiveToolsChangeEntry_Fragment = { __typename: 'ActiveToolsChangeEntry', entryId: string, type: EntryType };

type CompareEntry_BranchSummaryEntry_Fragment = { __typename: 'BranchSummaryEntry', entryId: string, type: EntryType };

type CompareEntry_CompactionEntry_Fragment = { __typename: 'CompactionEntry', entryId: string, type: EntryType };

type CompareEntry_ContextEditEntry_Fragment = { __typename: 'ContextEditEntry', entryId: string, type: EntryType };

type CompareEntry_CustomEntry_Fragment = { __typename: 'CustomEntry', entryId: string, type: EntryType };

type CompareEntry_CustomMessageEntry_Fragment = { __typename: 'CustomMessageEntry', entryId: string, type: EntryType };

type CompareEntry_LabelEntry_Fragment = { __typename: 'LabelEntry', entryId: string, type: EntryType };

type CompareEntry_LeafEntry_Fragment = { __typename: 'LeafEntry', entryId: string, type: EntryType };

type CompareEntry_MessageEntry_Fragment = { __typename: 'MessageEntry', role: string, preview: string, entryId: string, type: EntryType };

type CompareEntry_ModelChangeEntry_Fragment = { __typename: 'ModelChangeEntry', entryId: string, type: EntryType };

type CompareEntry_OtherEntry_Fragment = { __typename: 'OtherEntry', entryId: string, type: EntryType };

type CompareEntry_SessionInfoEntry_Fragment = { __typename: 'SessionInfoEntry', entryId: string, type: EntryType };

type CompareEntry_ThinkingLevelChangeEntry_Fragment = { __typename: 'ThinkingLevelChangeEntry', entryId: string, type: EntryType };

type CompareEntry_UsageEntry_Fragment = { __typename: 'UsageEntry', entryId: string, type: EntryType };

export type CompareEntryFragment =
  | CompareEntry_ActiveToolsChangeEntry_Fragment
  | CompareEntry_BranchSummaryEntry_Fragment
  | CompareEntry_CompactionEntry_Fragment
  | CompareEntry_ContextEditEntry_Fragment
  | CompareEntry_CustomEntry_Fragment
  | CompareEntry_CustomMessageEntry_Fragment
  | CompareEntry_LabelEntry_Fragment
  | CompareEntry_LeafEntry_Fragment
  | CompareEntry_MessageEntry_Fragment
  | CompareEntry_ModelChangeEntry_Fragment
  | CompareEntry_OtherEntry_Fragment
  | CompareEntry_SessionInfoEntry_Fragment
  | CompareEntry_ThinkingLevelChangeEntry_Fragment
  | CompareEntry_UsageEntry_Fragment
;

export type SessionCompareQueryVariables = Exact<{
  sessionId: string;
  a: string;
  b: string;
}>;


export type SessionCompareQuery = { session: { sessionId: string, compare: { ancestor:
        | { __typename: 'ActiveToolsChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'BranchSummaryEntry', entryId: string, type: EntryType }
        | { __typename: 'CompactionEntry', entryId: string, type: EntryType }
        | { __typename: 'ContextEditEntry', entryId: string, type: EntryType }
        | { __typename: 'CustomEntry', entryId: string, type: EntryType }
        | { __typename: 'CustomMessageEntry', entryId: string, type: EntryType }
        | { __typename: 'LabelEntry', entryId: string, type: EntryType }
        | { __typename: 'LeafEntry', entryId: string, type: EntryType }
        | { __typename: 'MessageEntry', role: string, preview: string, entryId: string, type: EntryType }
        | { __typename: 'ModelChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'OtherEntry', entryId: string, type: EntryType }
        | { __typename: 'SessionInfoEntry', entryId: string, type: EntryType }
        | { __typename: 'ThinkingLevelChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'UsageEntry', entryId: string, type: EntryType }
       | null, a: Array<
        | { __typename: 'ActiveToolsChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'BranchSummaryEntry', entryId: string, type: EntryType }
        | { __typename: 'CompactionEntry', entryId: string, type: EntryType }
        | { __typename: 'ContextEditEntry', entryId: string, type: EntryType }
        | { __typename: 'CustomEntry', entryId: string, type: EntryType }
        | { __typename: 'CustomMessageEntry', entryId: string, type: EntryType }
        | { __typename: 'LabelEntry', entryId: string, type: EntryType }
        | { __typename: 'LeafEntry', entryId: string, type: EntryType }
        | { __typename: 'MessageEntry', role: string, preview: string, entryId: string, type: EntryType }
        | { __typename: 'ModelChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'OtherEntry', entryId: string, type: EntryType }
        | { __typename: 'SessionInfoEntry', entryId: string, type: EntryType }
        | { __typename: 'ThinkingLevelChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'UsageEntry', entryId: string, type: EntryType }
      >, b: Array<
        | { __typename: 'ActiveToolsChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'BranchSummaryEntry', entryId: string, type: EntryType }
        | { __typename: 'CompactionEntry', entryId: string, type: EntryType }
        | { __typename: 'ContextEditEntry', entryId: string, type: EntryType }
        | { __typename: 'CustomEntry', entryId: string, type: EntryType }
        | { __typename: 'CustomMessageEntry', entryId: string, type: EntryType }
        | { __typename: 'LabelEntry', entryId: string, type: EntryType }
        | { __typename: 'LeafEntry', entryId: string, type: EntryType }
        | { __typename: 'MessageEntry', role: string, preview: string, entryId: string, type: EntryType }
        | { __typename: 'ModelChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'OtherEntry', entryId: string, type: EntryType }
        | { __typename: 'SessionInfoEntry', entryId: string, type: EntryType }
        | { __typename: 'ThinkingLevelChangeEntry', entryId: string, type: EntryType }
        | { __typename: 'UsageEntry', entryId: string, type: EntryType }
      > } } | null };

export type EntryDetailQueryVariables = Exact<{
  sessionId: string;
  entryId: string;
}>;


export type EntryDetailQuery = { session: { sessionId: string, entry:
      | { __typename: 'ActiveToolsChangeEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'BranchSummaryEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'CompactionEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'ContextEditEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'CustomEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'CustomMessageEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'LabelEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'LeafEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'MessageEntry', role: string, provider: string | null, model: string | null, stopReason: string | null, entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown, usage: { totalTokens: number, cost: { total: number } } | null }
      | { __typename: 'ModelChangeEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'OtherEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'SessionInfoEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'ThinkingLevelChangeEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
      | { __typename: 'UsageEntry', entryId: string, type: EntryType, seq: number, depth: number, parentId: string | null, timestamp: string, author: string | null, label: string | null, raw: unknown }
     | null, context: { messages: Array<unknown>, thinkingLevel: string, activeToolNames: Array<string> | null, model: { provider: string, modelId: string } | null } } | null };

export type SearchEntriesQueryVariables = Exact<{
  query: string;
  first: number;
  after?: string | null | undefined;
}>;


export type SearchEntriesQuery = { search: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ cursor: string, node: { rank: number, session: { sessionId: string, name: string | null }, entry:
          | { __typename: 'ActiveToolsChangeEntry', activeToolNames: Array<string>, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'BranchSummaryEntry', summary: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'CompactionEntry', tokensBefore: number, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'ContextEditEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'CustomEntry', customType: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'CustomMessageEntry', customType: string, content: unknown, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'LabelEntry', targetId: string | null, targetLabel: string | null, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'LeafEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'MessageEntry', role: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'ModelChangeEntry', modelId: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'OtherEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'SessionInfoEntry', name: string | null, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'ThinkingLevelChangeEntry', thinkingLevel: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
          | { __typename: 'UsageEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        , snippet: { text: string, highlights: Array<{ start: number, end: number }> } } }> } };

export type DashboardMetricsSubscriptionVariables = Exact<{
  query: MetricsQuery;
}>;


export type DashboardMetricsSubscription = { metricsUpdated: { truncated: boolean, rows: Array<{ time: string | null, model: string | null, sessionId: string | null, session: { sessionId: string, name: string | null } | null, values: { entries: number | null, assistantTurns: number | null, userTurns: number | null, totalTokens: number | null, cost: number | null, activeSessions: number | null } }> } };

export type DashboardActivitySubscriptionVariables = Exact<{
  afterCursor?: string | null | undefined;
}>;


export type DashboardActivitySubscription = { sessionActivity: { cursor: string, kind: ActivityKind, seq: number, at: string, session: { sessionId: string, name: string | null }, entry:
      | { __typename: 'ActiveToolsChangeEntry', entryId: string, type: EntryType }
      | { __typename: 'BranchSummaryEntry', entryId: string, type: EntryType }
      | { __typename: 'CompactionEntry', entryId: string, type: EntryType }
      | { __typename: 'ContextEditEntry', entryId: string, type: EntryType }
      | { __typename: 'CustomEntry', entryId: string, type: EntryType }
      | { __typename: 'CustomMessageEntry', entryId: string, type: EntryType }
      | { __typename: 'LabelEntry', entryId: string, type: EntryType }
      | { __typename: 'LeafEntry', entryId: string, type: EntryType }
      | { __typename: 'MessageEntry', role: string, model: string | null, preview: string, entryId: string, type: EntryType }
      | { __typename: 'ModelChangeEntry', entryId: string, type: EntryType }
      | { __typename: 'OtherEntry', entryId: string, type: EntryType }
      | { __typename: 'SessionInfoEntry', entryId: string, type: EntryType }
      | { __typename: 'ThinkingLevelChangeEntry', entryId: string, type: EntryType }
      | { __typename: 'UsageEntry', entryId: string, type: EntryType }
     | null } };

export type SessionHeaderQueryVariables = Exact<{
  sessionId: string;
}>;


export type SessionHeaderQuery = { session: { sessionId: string, name: string | null, cwd: string | null, createdAt: string } | null };

export type SessionListQueryVariables = Exact<{
  first: number;
}>;


export type SessionListQuery = { sessions: { totalCount: number, activityCursor: string, edges: Array<{ node: { sessionId: string, name: string | null, cwd: string | null, createdAt: string, updatedAt: string, lastSeq: number, entryCount: number } }> } };

export type RankedSessionsQueryVariables = Exact<{
  field: SessionOrderField;
  first: number;
  after?: string | null | undefined;
}>;


export type RankedSessionsQuery = { sessions: { totalCount: number, pageInfo: { endCursor: string | null, hasNextPage: boolean }, edges: Array<{ node: { sessionId: string, name: string | null, cwd: string | null, createdAt: string, updatedAt: string, lastSeq: number, entryCount: number } }> } };

export type SessionListActivitySubscriptionVariables = Exact<{
  afterCursor?: string | null | undefined;
}>;


export type SessionListActivitySubscription = { sessionActivity: { cursor: string, kind: ActivityKind, seq: number, at: string, session: { sessionId: string, name: string | null, cwd: string | null, createdAt: string, updatedAt: string, lastSeq: number, entryCount: number } } };

export type CostBySessionSubscriptionVariables = Exact<{
  query: MetricsQuery;
}>;


export type CostBySessionSubscription = { metricsUpdated: { rows: Array<{ sessionId: string | null, values: { cost: number | null, totalTokens: number | null } }> } };

export type SessionPresenceSubscriptionVariables = Exact<{
  sessionId: string;
  focusEntryId?: string | null | undefined;
}>;


export type SessionPresenceSubscription = { presence: { viewerId: string, viewers: Array<{ viewerId: string, subject: string | null, focusEntryId: string | null, since: string }> } };

export type SetPresenceMutationVariables = Exact<{
  input: SetPresenceInput;
}>;


export type SetPresenceMutation = { setPresence: { viewerId: string, focusEntryId: string | null } };

type TreeEntryFields_ActiveToolsChangeEntry_Fragment = { __typename: 'ActiveToolsChangeEntry', activeToolNames: Array<string>, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_BranchSummaryEntry_Fragment = { __typename: 'BranchSummaryEntry', summary: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_CompactionEntry_Fragment = { __typename: 'CompactionEntry', tokensBefore: number, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_ContextEditEntry_Fragment = { __typename: 'ContextEditEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_CustomEntry_Fragment = { __typename: 'CustomEntry', customType: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_CustomMessageEntry_Fragment = { __typename: 'CustomMessageEntry', customType: string, content: unknown, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_LabelEntry_Fragment = { __typename: 'LabelEntry', targetId: string | null, targetLabel: string | null, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_LeafEntry_Fragment = { __typename: 'LeafEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_MessageEntry_Fragment = { __typename: 'MessageEntry', role: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_ModelChangeEntry_Fragment = { __typename: 'ModelChangeEntry', modelId: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_OtherEntry_Fragment = { __typename: 'OtherEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_SessionInfoEntry_Fragment = { __typename: 'SessionInfoEntry', name: string | null, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_ThinkingLevelChangeEntry_Fragment = { __typename: 'ThinkingLevelChangeEntry', thinkingLevel: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

type TreeEntryFields_UsageEntry_Fragment = { __typename: 'UsageEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string };

export type TreeEntryFieldsFragment =
  | TreeEntryFields_ActiveToolsChangeEntry_Fragment
  | TreeEntryFields_BranchSummaryEntry_Fragment
  | TreeEntryFields_CompactionEntry_Fragment
  | TreeEntryFields_ContextEditEntry_Fragment
  | TreeEntryFields_CustomEntry_Fragment
  | TreeEntryFields_CustomMessageEntry_Fragment
  | TreeEntryFields_LabelEntry_Fragment
  | TreeEntryFields_LeafEntry_Fragment
  | TreeEntryFields_MessageEntry_Fragment
  | TreeEntryFields_ModelChangeEntry_Fragment
  | TreeEntryFields_OtherEntry_Fragment
  | TreeEntryFields_SessionInfoEntry_Fragment
  | TreeEntryFields_ThinkingLevelChangeEntry_Fragment
  | TreeEntryFields_UsageEntry_Fragment
;

export type TreePageQueryVariables = Exact<{
  sessionId: string;
  first: number;
  after?: string | null | undefined;
}>;


export type TreePageQuery = { session: { sessionId: string, leafId: string | null, lastSeq: number, tree: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, role: string | null, label: string | null, preview: string, onActivePath: boolean, timestamp: string, author: string | null } }> } } | null };

export type SessionTreeEventsSubscriptionVariables = Exact<{
  sessionId: string;
  afterSeq?: number | null | undefined;
}>;


export type SessionTreeEventsSubscription = { sessionEvents:
    | { __typename: 'EntryAppended', seq: number, leafId: string | null, entry:
        | { __typename: 'ActiveToolsChangeEntry', activeToolNames: Array<string>, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'BranchSummaryEntry', summary: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'CompactionEntry', tokensBefore: number, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'ContextEditEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'CustomEntry', customType: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'CustomMessageEntry', customType: string, content: unknown, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'LabelEntry', targetId: string | null, targetLabel: string | null, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'LeafEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'MessageEntry', role: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'ModelChangeEntry', modelId: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'OtherEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'SessionInfoEntry', name: string | null, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'ThinkingLevelChangeEntry', thinkingLevel: string, entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
        | { __typename: 'UsageEntry', entryId: string, parentId: string | null, seq: number, depth: number, type: EntryType, label: string | null, timestamp: string, author: string | null, preview: string }
       }
    | { __typename: 'LeafMoved', seq: number, leafId: string | null }
    | { __typename: 'SessionDeleted', sessionId: string }
   };

export const CompareEntryFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CompareEntry"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"preview"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"maxLength"},"value":{"kind":"IntValue","value":"160"}}]}]}}]}}]} as unknown as DocumentNode<CompareEntryFragment, unknown>;
export const TreeEntryFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TreeEntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"timestamp"}},{"kind":"Field","name":{"kind":"Name","value":"author"}},{"kind":"Field","name":{"kind":"Name","value":"preview"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"maxLength"},"value":{"kind":"IntValue","value":"160"}}]},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BranchSummaryEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"summary"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CompactionEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tokensBefore"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LabelEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"targetId"}},{"kind":"Field","name":{"kind":"Name","value":"targetLabel"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ModelChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"modelId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ThinkingLevelChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"thinkingLevel"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CustomEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"customType"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CustomMessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"customType"}},{"kind":"Field","name":{"kind":"Name","value":"content"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionInfoEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ActiveToolsChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activeToolNames"}}]}}]}}]} as unknown as DocumentNode<TreeEntryFieldsFragment, unknown>;
export const SessionCompareDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionCompare"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"a"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"b"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"compare"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"a"},"value":{"kind":"Variable","name":{"kind":"Name","value":"a"}}},{"kind":"Argument","name":{"kind":"Name","value":"b"},"value":{"kind":"Variable","name":{"kind":"Name","value":"b"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"ancestor"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"CompareEntry"}}]}},{"kind":"Field","name":{"kind":"Name","value":"a"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"CompareEntry"}}]}},{"kind":"Field","name":{"kind":"Name","value":"b"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"CompareEntry"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CompareEntry"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"preview"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"maxLength"},"value":{"kind":"IntValue","value":"160"}}]}]}}]}}]} as unknown as DocumentNode<SessionCompareQuery, SessionCompareQueryVariables>;
export const EntryDetailDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"EntryDetail"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"entryId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"entryId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"entryId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"timestamp"}},{"kind":"Field","name":{"kind":"Name","value":"author"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"raw"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"stopReason"}},{"kind":"Field","name":{"kind":"Name","value":"usage"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalTokens"}},{"kind":"Field","name":{"kind":"Name","value":"cost"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"context"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"fromId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"entryId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"messages"}},{"kind":"Field","name":{"kind":"Name","value":"thinkingLevel"}},{"kind":"Field","name":{"kind":"Name","value":"activeToolNames"}},{"kind":"Field","name":{"kind":"Name","value":"model"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"modelId"}}]}}]}}]}}]}}]} as unknown as DocumentNode<EntryDetailQuery, EntryDetailQueryVariables>;
export const SearchEntriesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SearchEntries"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"query"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"search"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"query"},"value":{"kind":"Variable","name":{"kind":"Name","value":"query"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"session"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TreeEntryFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"snippet"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"highlights"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"start"}},{"kind":"Field","name":{"kind":"Name","value":"end"}}]}}]}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TreeEntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"timestamp"}},{"kind":"Field","name":{"kind":"Name","value":"author"}},{"kind":"Field","name":{"kind":"Name","value":"preview"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"maxLength"},"value":{"kind":"IntValue","value":"160"}}]},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BranchSummaryEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"summary"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CompactionEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tokensBefore"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LabelEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"targetId"}},{"kind":"Field","name":{"kind":"Name","value":"targetLabel"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ModelChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"modelId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ThinkingLevelChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"thinkingLevel"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CustomEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"customType"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CustomMessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"customType"}},{"kind":"Field","name":{"kind":"Name","value":"content"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionInfoEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ActiveToolsChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activeToolNames"}}]}}]}}]} as unknown as DocumentNode<SearchEntriesQuery, SearchEntriesQueryVariables>;
export const DashboardMetricsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"DashboardMetrics"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"query"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"MetricsQuery"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"metricsUpdated"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"query"},"value":{"kind":"Variable","name":{"kind":"Name","value":"query"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"truncated"}},{"kind":"Field","name":{"kind":"Name","value":"rows"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"time"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"session"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"values"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"entries"}},{"kind":"Field","name":{"kind":"Name","value":"assistantTurns"}},{"kind":"Field","name":{"kind":"Name","value":"userTurns"}},{"kind":"Field","name":{"kind":"Name","value":"totalTokens"}},{"kind":"Field","name":{"kind":"Name","value":"cost"}},{"kind":"Field","name":{"kind":"Name","value":"activeSessions"}}]}}]}}]}}]}}]} as unknown as DocumentNode<DashboardMetricsSubscription, DashboardMetricsSubscriptionVariables>;
export const DashboardActivityDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"DashboardActivity"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"afterCursor"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionActivity"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"afterCursor"},"value":{"kind":"Variable","name":{"kind":"Name","value":"afterCursor"}}},{"kind":"Argument","name":{"kind":"Name","value":"last"},"value":{"kind":"IntValue","value":"20"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"session"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"preview"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"maxLength"},"value":{"kind":"IntValue","value":"100"}}]}]}}]}}]}}]}}]} as unknown as DocumentNode<DashboardActivitySubscription, DashboardActivitySubscriptionVariables>;
export const SessionHeaderDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionHeader"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"cwd"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}}]}}]}}]} as unknown as DocumentNode<SessionHeaderQuery, SessionHeaderQueryVariables>;
export const SessionListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessions"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"activityCursor"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"cwd"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastSeq"}},{"kind":"Field","name":{"kind":"Name","value":"entryCount"}}]}}]}}]}}]}}]} as unknown as DocumentNode<SessionListQuery, SessionListQueryVariables>;
export const RankedSessionsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RankedSessions"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"field"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"SessionOrderField"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessions"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"orderBy"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"field"},"value":{"kind":"Variable","name":{"kind":"Name","value":"field"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"direction"},"value":{"kind":"EnumValue","value":"DESC"}}]}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"endCursor"}},{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"cwd"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastSeq"}},{"kind":"Field","name":{"kind":"Name","value":"entryCount"}}]}}]}}]}}]}}]} as unknown as DocumentNode<RankedSessionsQuery, RankedSessionsQueryVariables>;
export const SessionListActivityDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"SessionListActivity"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"afterCursor"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionActivity"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"afterCursor"},"value":{"kind":"Variable","name":{"kind":"Name","value":"afterCursor"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"session"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"cwd"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastSeq"}},{"kind":"Field","name":{"kind":"Name","value":"entryCount"}}]}}]}}]}}]} as unknown as DocumentNode<SessionListActivitySubscription, SessionListActivitySubscriptionVariables>;
export const CostBySessionDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"CostBySession"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"query"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"MetricsQuery"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"metricsUpdated"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"query"},"value":{"kind":"Variable","name":{"kind":"Name","value":"query"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rows"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"values"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cost"}},{"kind":"Field","name":{"kind":"Name","value":"totalTokens"}}]}}]}}]}}]}}]} as unknown as DocumentNode<CostBySessionSubscription, CostBySessionSubscriptionVariables>;
export const SessionPresenceDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"SessionPresence"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"focusEntryId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"presence"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"focusEntryId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"focusEntryId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewerId"}},{"kind":"Field","name":{"kind":"Name","value":"viewers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewerId"}},{"kind":"Field","name":{"kind":"Name","value":"subject"}},{"kind":"Field","name":{"kind":"Name","value":"focusEntryId"}},{"kind":"Field","name":{"kind":"Name","value":"since"}}]}}]}}]}}]} as unknown as DocumentNode<SessionPresenceSubscription, SessionPresenceSubscriptionVariables>;
export const SetPresenceDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"SetPresence"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"SetPresenceInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"setPresence"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewerId"}},{"kind":"Field","name":{"kind":"Name","value":"focusEntryId"}}]}}]}}]} as unknown as DocumentNode<SetPresenceMutation, SetPresenceMutationVariables>;
export const TreePageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TreePage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"leafId"}},{"kind":"Field","name":{"kind":"Name","value":"lastSeq"}},{"kind":"Field","name":{"kind":"Name","value":"tree"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"preview"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"maxLength"},"value":{"kind":"IntValue","value":"160"}}]},{"kind":"Field","name":{"kind":"Name","value":"onActivePath"}},{"kind":"Field","name":{"kind":"Name","value":"timestamp"}},{"kind":"Field","name":{"kind":"Name","value":"author"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<TreePageQuery, TreePageQueryVariables>;
export const SessionTreeEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"SessionTreeEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"afterSeq"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"afterSeq"},"value":{"kind":"Variable","name":{"kind":"Name","value":"afterSeq"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"EntryAppended"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"leafId"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TreeEntryFields"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LeafMoved"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"leafId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionDeleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionId"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TreeEntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"timestamp"}},{"kind":"Field","name":{"kind":"Name","value":"author"}},{"kind":"Field","name":{"kind":"Name","value":"preview"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"maxLength"},"value":{"kind":"IntValue","value":"160"}}]},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BranchSummaryEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"summary"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CompactionEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tokensBefore"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LabelEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"targetId"}},{"kind":"Field","name":{"kind":"Name","value":"targetLabel"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ModelChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"modelId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ThinkingLevelChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"thinkingLevel"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CustomEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"customType"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CustomMessageEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"customType"}},{"kind":"Field","name":{"kind":"Name","value":"content"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionInfoEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ActiveToolsChangeEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activeToolNames"}}]}}]}}]} as unknown as DocumentNode<SessionTreeEventsSubscription, SessionTreeEventsSubscriptionVariables>;
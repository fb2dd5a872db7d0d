"""Contains all the data models used in inputs/outputs"""

from .account_status import AccountStatus
from .activity import Activity
from .actor_type import ActorType
from .allowance import Allowance
from .allowlist_entry import AllowlistEntry
from .attachment import Attachment
from .attempt_result import AttemptResult
from .audit_entry import AuditEntry
from .auth_request import AuthRequest
from .auth_request_custom_headers_type_0 import AuthRequestCustomHeadersType0
from .basic_auth_view import BasicAuthView
from .basic_request import BasicRequest
from .batch_recipient import BatchRecipient
from .batch_recipient_headers_type_0 import BatchRecipientHeadersType0
from .batch_recipient_metadata_type_0 import BatchRecipientMetadataType0
from .batch_recipient_vars import BatchRecipientVars
from .batch_send_request import BatchSendRequest
from .batch_send_request_headers import BatchSendRequestHeaders
from .batch_send_request_metadata import BatchSendRequestMetadata
from .batch_send_result import BatchSendResult
from .bearer_auth_view import BearerAuthView
from .bearer_request import BearerRequest
from .billing_period import BillingPeriod
from .bounce_breakdown import BounceBreakdown
from .breakdown_row import BreakdownRow
from .bulk_create import BulkCreate
from .bulk_entry import BulkEntry
from .bulk_member import BulkMember
from .bulk_member_vars_type_0 import BulkMemberVarsType0
from .bulk_members_request import BulkMembersRequest
from .bulk_members_result import BulkMembersResult
from .bulk_result_file import BulkResultFile
from .bulk_results_page import BulkResultsPage
from .bulk_status import BulkStatus
from .bulk_summary import BulkSummary
from .bulk_suppression_delete import BulkSuppressionDelete
from .bulk_suppression_delete_result import BulkSuppressionDeleteResult
from .bulk_suppression_request import BulkSuppressionRequest
from .bulk_suppression_result import BulkSuppressionResult
from .bulk_verification_job import BulkVerificationJob
from .bulk_verification_job_accepted import BulkVerificationJobAccepted
from .comparison import Comparison
from .content_check import ContentCheck
from .copy_source import CopySource
from .custom_headers_auth_view import CustomHeadersAuthView
from .custom_headers_auth_view_headers import CustomHeadersAuthViewHeaders
from .daily_quota import DailyQuota
from .data_removal import DataRemoval
from .data_removal_accepted import DataRemovalAccepted
from .data_removal_batch_accepted import DataRemovalBatchAccepted
from .data_removal_request import DataRemovalRequest
from .delete_confirmation import DeleteConfirmation
from .delivery_attempt_view import DeliveryAttemptView
from .delivery_metrics import DeliveryMetrics
from .delivery_status import DeliveryStatus
from .delta import Delta
from .dimension import Dimension
from .disabled_reason import DisabledReason
from .domain import Domain
from .domain_create import DomainCreate
from .domain_list import DomainList
from .domain_record_view import DomainRecordView
from .domain_status import DomainStatus
from .domain_update import DomainUpdate
from .egress_addresses import EgressAddresses
from .egress_addresses_used_for_item import EgressAddressesUsedForItem
from .email_list_evaluation import EmailListEvaluation
from .email_quota import EmailQuota
from .engagement_metrics import EngagementMetrics
from .environment import Environment
from .erasure_receipt import ErasureReceipt
from .error_body import ErrorBody
from .error_detail import ErrorDetail
from .evaluate_request import EvaluateRequest
from .evaluation_recommendation import EvaluationRecommendation
from .event_export_accepted import EventExportAccepted
from .event_export_request import EventExportRequest
from .event_export_request_event_type_0 import EventExportRequestEventType0
from .event_export_request_metadata import EventExportRequestMetadata
from .event_list_page import EventListPage
from .event_type import EventType
from .event_view import EventView
from .event_view_metadata_type_0 import EventViewMetadataType0
from .export_job_view import ExportJobView
from .export_status import ExportStatus
from .failed_member import FailedMember
from .finding import Finding
from .fingerprint_check import FingerprintCheck
from .header import Header
from .hmac_auth_view import HmacAuthView
from .hmac_request import HmacRequest
from .identity import Identity
from .identity_account import IdentityAccount
from .identity_key import IdentityKey
from .import_status import ImportStatus
from .ip import Ip
from .ip_assign import IpAssign
from .ip_pool import IpPool
from .ip_pool_create import IpPoolCreate
from .ip_pool_ip_details_type_0 import IpPoolIpDetailsType0
from .ip_pool_ip_details_type_0_additional_property import IpPoolIpDetailsType0AdditionalProperty
from .ip_pool_update import IpPoolUpdate
from .key_create import KeyCreate
from .key_created import KeyCreated
from .key_detail import KeyDetail
from .key_rotated import KeyRotated
from .key_update import KeyUpdate
from .latency_breakdown import LatencyBreakdown
from .list_create import ListCreate
from .list_events_event_type_0 import ListEventsEventType0
from .list_member import ListMember
from .list_member_vars_type_0 import ListMemberVarsType0
from .list_send_result import ListSendResult
from .list_send_status import ListSendStatus
from .list_update import ListUpdate
from .list_webhook_deliveries_event_type_0 import ListWebhookDeliveriesEventType0
from .mailing_list import MailingList
from .member_create import MemberCreate
from .member_create_vars_type_0 import MemberCreateVarsType0
from .member_update import MemberUpdate
from .member_update_vars_type_0 import MemberUpdateVarsType0
from .message_accepted import MessageAccepted
from .message_accepted_headers import MessageAcceptedHeaders
from .message_content import MessageContent
from .message_status import MessageStatus
from .message_view import MessageView
from .message_view_headers import MessageViewHeaders
from .metrics_breakdown import MetricsBreakdown
from .metrics_breakdown_sort import MetricsBreakdownSort
from .metrics_data_point import MetricsDataPoint
from .metrics_group import MetricsGroup
from .metrics_summary import MetricsSummary
from .metrics_timeseries import MetricsTimeseries
from .metrics_timeseries_group_by_type_0 import MetricsTimeseriesGroupByType0
from .metrics_timeseries_resolution import MetricsTimeseriesResolution
from .mime_part import MimePart
from .mtls_auth_view import MtlsAuthView
from .mtls_request import MtlsRequest
from .o_auth_2_auth_view import OAuth2AuthView
from .o_auth_2_request import OAuth2Request
from .page_audit_entry import PageAuditEntry
from .page_ip import PageIp
from .page_ip_pool import PageIpPool
from .page_key_detail import PageKeyDetail
from .page_list_member import PageListMember
from .page_mailing_list import PageMailingList
from .page_scheduled_message import PageScheduledMessage
from .page_subaccount import PageSubaccount
from .page_suppression import PageSuppression
from .page_template import PageTemplate
from .page_webhook import PageWebhook
from .pagination import Pagination
from .part import Part
from .part_name import PartName
from .payg_credits import PaygCredits
from .percentiles import Percentiles
from .period import Period
from .plan import Plan
from .pool_type import PoolType
from .presigned_post import PresignedPost
from .presigned_post_fields import PresignedPostFields
from .proof_verification_result import ProofVerificationResult
from .proof_verify_request import ProofVerifyRequest
from .provider import Provider
from .public_key import PublicKey
from .quota_source import QuotaSource
from .recipient_copy import RecipientCopy
from .recommendation import Recommendation
from .record_purpose import RecordPurpose
from .record_type import RecordType
from .rejected_recipient import RejectedRecipient
from .removal_counts import RemovalCounts
from .removal_status import RemovalStatus
from .rendered_template import RenderedTemplate
from .resend_filter import ResendFilter
from .resend_filter_event_type_0_item import ResendFilterEventType0Item
from .resend_filter_status_item import ResendFilterStatusItem
from .resend_job_view import ResendJobView
from .resend_job_view_mode import ResendJobViewMode
from .resend_status import ResendStatus
from .resolution import Resolution
from .risk import Risk
from .row_error import RowError
from .row_error_reason import RowErrorReason
from .rule import Rule
from .sample_request import SampleRequest
from .scaling import Scaling
from .scheduled_message import ScheduledMessage
from .scheduled_message_cancellation import ScheduledMessageCancellation
from .scope import Scope
from .send_request import SendRequest
from .send_request_headers import SendRequestHeaders
from .send_request_metadata import SendRequestMetadata
from .send_request_vars import SendRequestVars
from .share import Share
from .signature_check import SignatureCheck
from .signing_key_set import SigningKeySet
from .skip_reason import SkipReason
from .skipped_entry import SkippedEntry
from .skipped_member import SkippedMember
from .status import Status
from .subaccount import Subaccount
from .subaccount_create import SubaccountCreate
from .subaccount_status import SubaccountStatus
from .subaccount_update import SubaccountUpdate
from .suppression import Suppression
from .suppression_create import SuppressionCreate
from .suppression_export_accepted import SuppressionExportAccepted
from .suppression_export_request import SuppressionExportRequest
from .suppression_import_accepted import SuppressionImportAccepted
from .suppression_import_request import SuppressionImportRequest
from .suppression_import_view import SuppressionImportView
from .suppression_removal import SuppressionRemoval
from .suppression_source import SuppressionSource
from .suppression_type import SuppressionType
from .template import Template
from .template_create import TemplateCreate
from .template_create_vars_schema_type_0 import TemplateCreateVarsSchemaType0
from .template_preview import TemplatePreview
from .template_preview_vars import TemplatePreviewVars
from .template_preview_vars_schema_type_0 import TemplatePreviewVarsSchemaType0
from .template_update import TemplateUpdate
from .template_update_vars_schema_type_0 import TemplateUpdateVarsSchemaType0
from .template_vars_schema_type_0 import TemplateVarsSchemaType0
from .test_allowance import TestAllowance
from .test_outcomes import TestOutcomes
from .test_outcomes_send import TestOutcomesSend
from .test_outcomes_verify import TestOutcomesVerify
from .trend_point import TrendPoint
from .upload_create import UploadCreate
from .upload_created import UploadCreated
from .upload_download_link import UploadDownloadLink
from .upload_list import UploadList
from .upload_out import UploadOut
from .upload_status import UploadStatus
from .upload_update import UploadUpdate
from .usage import Usage
from .validate_request import ValidateRequest
from .validation_result import ValidationResult
from .verdict import Verdict
from .verification_result import VerificationResult
from .verify_credits import VerifyCredits
from .webhook import Webhook
from .webhook_create import WebhookCreate
from .webhook_delivery_page import WebhookDeliveryPage
from .webhook_delivery_view import WebhookDeliveryView
from .webhook_status import WebhookStatus
from .webhook_update import WebhookUpdate
from .webhook_with_secret import WebhookWithSecret
from .webhook_with_secret_status import WebhookWithSecretStatus

__all__ = (
    "AccountStatus",
    "Activity",
    "ActorType",
    "Allowance",
    "AllowlistEntry",
    "Attachment",
    "AttemptResult",
    "AuditEntry",
    "AuthRequest",
    "AuthRequestCustomHeadersType0",
    "BasicAuthView",
    "BasicRequest",
    "BatchRecipient",
    "BatchRecipientHeadersType0",
    "BatchRecipientMetadataType0",
    "BatchRecipientVars",
    "BatchSendRequest",
    "BatchSendRequestHeaders",
    "BatchSendRequestMetadata",
    "BatchSendResult",
    "BearerAuthView",
    "BearerRequest",
    "BillingPeriod",
    "BounceBreakdown",
    "BreakdownRow",
    "BulkCreate",
    "BulkEntry",
    "BulkMember",
    "BulkMembersRequest",
    "BulkMembersResult",
    "BulkMemberVarsType0",
    "BulkResultFile",
    "BulkResultsPage",
    "BulkStatus",
    "BulkSummary",
    "BulkSuppressionDelete",
    "BulkSuppressionDeleteResult",
    "BulkSuppressionRequest",
    "BulkSuppressionResult",
    "BulkVerificationJob",
    "BulkVerificationJobAccepted",
    "Comparison",
    "ContentCheck",
    "CopySource",
    "CustomHeadersAuthView",
    "CustomHeadersAuthViewHeaders",
    "DailyQuota",
    "DataRemoval",
    "DataRemovalAccepted",
    "DataRemovalBatchAccepted",
    "DataRemovalRequest",
    "DeleteConfirmation",
    "DeliveryAttemptView",
    "DeliveryMetrics",
    "DeliveryStatus",
    "Delta",
    "Dimension",
    "DisabledReason",
    "Domain",
    "DomainCreate",
    "DomainList",
    "DomainRecordView",
    "DomainStatus",
    "DomainUpdate",
    "EgressAddresses",
    "EgressAddressesUsedForItem",
    "EmailListEvaluation",
    "EmailQuota",
    "EngagementMetrics",
    "Environment",
    "ErasureReceipt",
    "ErrorBody",
    "ErrorDetail",
    "EvaluateRequest",
    "EvaluationRecommendation",
    "EventExportAccepted",
    "EventExportRequest",
    "EventExportRequestEventType0",
    "EventExportRequestMetadata",
    "EventListPage",
    "EventType",
    "EventView",
    "EventViewMetadataType0",
    "ExportJobView",
    "ExportStatus",
    "FailedMember",
    "Finding",
    "FingerprintCheck",
    "Header",
    "HmacAuthView",
    "HmacRequest",
    "Identity",
    "IdentityAccount",
    "IdentityKey",
    "ImportStatus",
    "Ip",
    "IpAssign",
    "IpPool",
    "IpPoolCreate",
    "IpPoolIpDetailsType0",
    "IpPoolIpDetailsType0AdditionalProperty",
    "IpPoolUpdate",
    "KeyCreate",
    "KeyCreated",
    "KeyDetail",
    "KeyRotated",
    "KeyUpdate",
    "LatencyBreakdown",
    "ListCreate",
    "ListEventsEventType0",
    "ListMember",
    "ListMemberVarsType0",
    "ListSendResult",
    "ListSendStatus",
    "ListUpdate",
    "ListWebhookDeliveriesEventType0",
    "MailingList",
    "MemberCreate",
    "MemberCreateVarsType0",
    "MemberUpdate",
    "MemberUpdateVarsType0",
    "MessageAccepted",
    "MessageAcceptedHeaders",
    "MessageContent",
    "MessageStatus",
    "MessageView",
    "MessageViewHeaders",
    "MetricsBreakdown",
    "MetricsBreakdownSort",
    "MetricsDataPoint",
    "MetricsGroup",
    "MetricsSummary",
    "MetricsTimeseries",
    "MetricsTimeseriesGroupByType0",
    "MetricsTimeseriesResolution",
    "MimePart",
    "MtlsAuthView",
    "MtlsRequest",
    "OAuth2AuthView",
    "OAuth2Request",
    "PageAuditEntry",
    "PageIp",
    "PageIpPool",
    "PageKeyDetail",
    "PageListMember",
    "PageMailingList",
    "PageScheduledMessage",
    "PageSubaccount",
    "PageSuppression",
    "PageTemplate",
    "PageWebhook",
    "Pagination",
    "Part",
    "PartName",
    "PaygCredits",
    "Percentiles",
    "Period",
    "Plan",
    "PoolType",
    "PresignedPost",
    "PresignedPostFields",
    "ProofVerificationResult",
    "ProofVerifyRequest",
    "Provider",
    "PublicKey",
    "QuotaSource",
    "RecipientCopy",
    "Recommendation",
    "RecordPurpose",
    "RecordType",
    "RejectedRecipient",
    "RemovalCounts",
    "RemovalStatus",
    "RenderedTemplate",
    "ResendFilter",
    "ResendFilterEventType0Item",
    "ResendFilterStatusItem",
    "ResendJobView",
    "ResendJobViewMode",
    "ResendStatus",
    "Resolution",
    "Risk",
    "RowError",
    "RowErrorReason",
    "Rule",
    "SampleRequest",
    "Scaling",
    "ScheduledMessage",
    "ScheduledMessageCancellation",
    "Scope",
    "SendRequest",
    "SendRequestHeaders",
    "SendRequestMetadata",
    "SendRequestVars",
    "Share",
    "SignatureCheck",
    "SigningKeySet",
    "SkippedEntry",
    "SkippedMember",
    "SkipReason",
    "Status",
    "Subaccount",
    "SubaccountCreate",
    "SubaccountStatus",
    "SubaccountUpdate",
    "Suppression",
    "SuppressionCreate",
    "SuppressionExportAccepted",
    "SuppressionExportRequest",
    "SuppressionImportAccepted",
    "SuppressionImportRequest",
    "SuppressionImportView",
    "SuppressionRemoval",
    "SuppressionSource",
    "SuppressionType",
    "Template",
    "TemplateCreate",
    "TemplateCreateVarsSchemaType0",
    "TemplatePreview",
    "TemplatePreviewVars",
    "TemplatePreviewVarsSchemaType0",
    "TemplateUpdate",
    "TemplateUpdateVarsSchemaType0",
    "TemplateVarsSchemaType0",
    "TestAllowance",
    "TestOutcomes",
    "TestOutcomesSend",
    "TestOutcomesVerify",
    "TrendPoint",
    "UploadCreate",
    "UploadCreated",
    "UploadDownloadLink",
    "UploadList",
    "UploadOut",
    "UploadStatus",
    "UploadUpdate",
    "Usage",
    "ValidateRequest",
    "ValidationResult",
    "Verdict",
    "VerificationResult",
    "VerifyCredits",
    "Webhook",
    "WebhookCreate",
    "WebhookDeliveryPage",
    "WebhookDeliveryView",
    "WebhookStatus",
    "WebhookUpdate",
    "WebhookWithSecret",
    "WebhookWithSecretStatus",
)

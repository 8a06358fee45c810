/**
 * The messages of the built-in kinds the fake cluster knows field by field: one table
 * feeds the protobuf decoder (field numbers, from Kubernetes' `generated.proto`), the
 * strategic merge patch (merge keys, from the `patchMergeKey`/`patchStrategy` tags of
 * the Go types) and the OpenAPI definitions (field types).
 *
 * Each message is a line of `jsonName=number[:type][[]][?][@mergeKey][+retainKeys]`:
 * - `type` is `int`, `bool`, `bytes`, `time`, `microtime`, `quantity`, `intstr`,
 *   `fieldsV1`, `map` (of strings), `map<bytes>`, `map<quantity>` or a message; a string
 *   when omitted;
 * - `[]` a list;
 * - `?` a Go pointer: a zero value was set on purpose and is kept (other zero scalars
 *   are dropped, as Go's `omitempty` does when the server writes JSON);
 * - `@key` a list merged by that key; a bare `@` a list of scalars merged as a set;
 * - `+retainKeys` the `retainKeys` strategy (kubectl sends `$retainKeys` for it);
 * - `...=number:Message` a message embedded inline (its fields appear in this one).
 *
 * Fields a table lacks are not silently dropped: the decoder refuses a body that sets one.
 *
 * @module
 */

const META: Record<string, string> = {
  ObjectMeta: "name=1 generateName=2 namespace=3 selfLink=4 uid=5 resourceVersion=6 " +
    "generation=7:int creationTimestamp=8:time deletionTimestamp=9:time " +
    "deletionGracePeriodSeconds=10:int? labels=11:map annotations=12:map " +
    "ownerReferences=13:OwnerReference[]@uid finalizers=14[]@ " +
    "managedFields=17:ManagedFieldsEntry[]",
  OwnerReference: "apiVersion=5 kind=1 name=3 uid=4 controller=6:bool? blockOwnerDeletion=7:bool?",
  ManagedFieldsEntry: "manager=1 operation=2 apiVersion=3 time=4:time fieldsType=6 " +
    "fieldsV1=7:fieldsV1 subresource=8",
  LabelSelector: "matchLabels=1:map matchExpressions=2:LabelSelectorRequirement[]",
  LabelSelectorRequirement: "key=1 operator=2 values=3[]",
  Condition: "type=1 status=2 observedGeneration=3:int lastTransitionTime=4:time reason=5 " +
    "message=6",
};

const APPS: Record<string, string> = {
  Deployment: "metadata=1:ObjectMeta spec=2:DeploymentSpec status=3:DeploymentStatus",
  DeploymentSpec: "replicas=1:int? selector=2:LabelSelector template=3:PodTemplateSpec " +
    "strategy=4:DeploymentStrategy+retainKeys minReadySeconds=5:int " +
    "revisionHistoryLimit=6:int? paused=7:bool progressDeadlineSeconds=9:int? " +
    "podReplacementPolicy=10?",
  DeploymentStrategy: "type=1 rollingUpdate=2:RollingUpdateDeployment",
  RollingUpdateDeployment: "maxUnavailable=1:intstr maxSurge=2:intstr",
  DeploymentStatus: "observedGeneration=1:int replicas=2:int updatedReplicas=3:int " +
    "readyReplicas=7:int availableReplicas=4:int unavailableReplicas=5:int " +
    "terminatingReplicas=9:int? conditions=6:DeploymentCondition[]@type collisionCount=8:int?",
  DeploymentCondition: "type=1 status=2 lastUpdateTime=6:time lastTransitionTime=7:time " +
    "reason=4 message=5",
  ReplicaSet: "metadata=1:ObjectMeta spec=2:ReplicaSetSpec status=3:ReplicaSetStatus",
  ReplicaSetSpec: "replicas=1:int? minReadySeconds=4:int selector=2:LabelSelector " +
    "template=3:PodTemplateSpec",
  ReplicaSetStatus: "replicas=1:int fullyLabeledReplicas=2:int readyReplicas=4:int " +
    "availableReplicas=5:int terminatingReplicas=7:int? observedGeneration=3:int " +
    "conditions=6:ReplicaSetCondition[]@type",
  ReplicaSetCondition: "type=1 status=2 lastTransitionTime=3:time reason=4 message=5",
  StatefulSet: "metadata=1:ObjectMeta spec=2:StatefulSetSpec status=3:StatefulSetStatus",
  StatefulSetSpec: "replicas=1:int? selector=2:LabelSelector template=3:PodTemplateSpec " +
    "volumeClaimTemplates=4:PersistentVolumeClaim[] serviceName=5 podManagementPolicy=6 " +
    "updateStrategy=7:StatefulSetUpdateStrategy revisionHistoryLimit=8:int? " +
    "minReadySeconds=9:int " +
    "persistentVolumeClaimRetentionPolicy=10:StatefulSetPersistentVolumeClaimRetentionPolicy " +
    "ordinals=11:StatefulSetOrdinals",
  StatefulSetUpdateStrategy: "type=1 rollingUpdate=2:RollingUpdateStatefulSetStrategy",
  RollingUpdateStatefulSetStrategy: "partition=1:int? maxUnavailable=2:intstr",
  StatefulSetPersistentVolumeClaimRetentionPolicy: "whenDeleted=1 whenScaled=2",
  StatefulSetOrdinals: "start=1:int",
  StatefulSetStatus: "observedGeneration=1:int replicas=2:int readyReplicas=3:int " +
    "currentReplicas=4:int updatedReplicas=5:int currentRevision=6 updateRevision=7 " +
    "collisionCount=9:int? conditions=10:StatefulSetCondition[]@type availableReplicas=11:int",
  StatefulSetCondition: "type=1 status=2 lastTransitionTime=3:time reason=4 message=5",
  DaemonSet: "metadata=1:ObjectMeta spec=2:DaemonSetSpec status=3:DaemonSetStatus",
  DaemonSetSpec: "selector=1:LabelSelector template=2:PodTemplateSpec " +
    "updateStrategy=3:DaemonSetUpdateStrategy minReadySeconds=4:int revisionHistoryLimit=6:int?",
  DaemonSetUpdateStrategy: "type=1 rollingUpdate=2:RollingUpdateDaemonSet",
  RollingUpdateDaemonSet: "maxUnavailable=1:intstr maxSurge=2:intstr",
  DaemonSetStatus: "currentNumberScheduled=1:int numberMisscheduled=2:int " +
    "desiredNumberScheduled=3:int numberReady=4:int observedGeneration=5:int " +
    "updatedNumberScheduled=6:int numberAvailable=7:int numberUnavailable=8:int " +
    "collisionCount=9:int? conditions=10:DaemonSetCondition[]@type",
  DaemonSetCondition: "type=1 status=2 lastTransitionTime=3:time reason=4 message=5",
};

const BATCH: Record<string, string> = {
  Job: "metadata=1:ObjectMeta spec=2:JobSpec status=3:JobStatus",
  JobSpec: "parallelism=1:int? completions=2:int? activeDeadlineSeconds=3:int? " +
    "podFailurePolicy=11:PodFailurePolicy successPolicy=16:SuccessPolicy backoffLimit=7:int? " +
    "backoffLimitPerIndex=12:int? maxFailedIndexes=13:int? selector=4:LabelSelector " +
    "manualSelector=5:bool? template=6:PodTemplateSpec ttlSecondsAfterFinished=8:int? " +
    "completionMode=9? suspend=10:bool? podReplacementPolicy=14? managedBy=15?",
  JobStatus: "conditions=1:JobCondition[]@type startTime=2:time completionTime=3:time " +
    "active=4:int succeeded=5:int failed=6:int terminating=11:int? completedIndexes=7 " +
    "failedIndexes=10? uncountedTerminatedPods=8:UncountedTerminatedPods ready=9:int?",
  JobCondition: "type=1 status=2 lastProbeTime=3:time lastTransitionTime=4:time reason=5 " +
    "message=6",
  UncountedTerminatedPods: "succeeded=1[] failed=2[]",
  PodFailurePolicy: "rules=1:PodFailurePolicyRule[]",
  PodFailurePolicyRule: "action=1 onExitCodes=2:PodFailurePolicyOnExitCodesRequirement " +
    "onPodConditions=3:PodFailurePolicyOnPodConditionsPattern[]",
  PodFailurePolicyOnExitCodesRequirement: "containerName=1? operator=2 values=3:int[]",
  PodFailurePolicyOnPodConditionsPattern: "type=1 status=2",
  SuccessPolicy: "rules=1:SuccessPolicyRule[]",
  SuccessPolicyRule: "succeededIndexes=1? succeededCount=2:int?",
  JobTemplateSpec: "metadata=1:ObjectMeta spec=2:JobSpec",
  CronJob: "metadata=1:ObjectMeta spec=2:CronJobSpec status=3:CronJobStatus",
  CronJobSpec: "schedule=1 timeZone=8? startingDeadlineSeconds=2:int? concurrencyPolicy=3 " +
    "suspend=4:bool? jobTemplate=5:JobTemplateSpec successfulJobsHistoryLimit=6:int? " +
    "failedJobsHistoryLimit=7:int?",
  CronJobStatus: "active=1:ObjectReference[] lastScheduleTime=4:time lastSuccessfulTime=5:time",
};

const RBAC: Record<string, string> = {
  Role: "metadata=1:ObjectMeta rules=2:PolicyRule[]",
  ClusterRole: "metadata=1:ObjectMeta rules=2:PolicyRule[] aggregationRule=3:AggregationRule",
  PolicyRule: "verbs=1[] apiGroups=2[] resources=3[] resourceNames=4[] nonResourceURLs=5[]",
  AggregationRule: "clusterRoleSelectors=1:LabelSelector[]",
  RoleBinding: "metadata=1:ObjectMeta subjects=2:Subject[] roleRef=3:RoleRef",
  ClusterRoleBinding: "metadata=1:ObjectMeta subjects=2:Subject[] roleRef=3:RoleRef",
  Subject: "kind=1 apiGroup=2 name=3 namespace=4",
  RoleRef: "apiGroup=1 kind=2 name=3",
};

const CONTAINER = "name=1 image=2 command=3[] args=4[] workingDir=5 " +
  "ports=6:ContainerPort[]@containerPort envFrom=19:EnvFromSource[] env=7:EnvVar[]@name " +
  "resources=8:ResourceRequirements resizePolicy=23:ContainerResizePolicy[] restartPolicy=24? " +
  "restartPolicyRules=25:ContainerRestartRule[] volumeMounts=9:VolumeMount[]@mountPath " +
  "volumeDevices=21:VolumeDevice[]@devicePath livenessProbe=10:Probe readinessProbe=11:Probe " +
  "startupProbe=22:Probe lifecycle=12:Lifecycle terminationMessagePath=13 " +
  "terminationMessagePolicy=20 imagePullPolicy=14 securityContext=15:SecurityContext " +
  "stdin=16:bool stdinOnce=17:bool tty=18:bool";

const LOCAL_REF = "...=1:LocalObjectReference";

const CORE: Record<string, string> = {
  Namespace: "metadata=1:ObjectMeta spec=2:NamespaceSpec status=3:NamespaceStatus",
  NamespaceSpec: "finalizers=1[]",
  NamespaceStatus: "phase=1 conditions=2:NamespaceCondition[]@type",
  NamespaceCondition: "type=1 status=2 lastTransitionTime=4:time reason=5 message=6",
  ConfigMap: "metadata=1:ObjectMeta immutable=4:bool? data=2:map binaryData=3:map<bytes>",
  Secret: "metadata=1:ObjectMeta immutable=5:bool? data=2:map<bytes> stringData=4:map type=3",
  ServiceAccount: "metadata=1:ObjectMeta secrets=2:ObjectReference[]@name " +
    "imagePullSecrets=3:LocalObjectReference[] automountServiceAccountToken=4:bool?",
  ObjectReference: "kind=1 namespace=2 name=3 uid=4 apiVersion=5 resourceVersion=6 fieldPath=7",
  LocalObjectReference: "name=1",
  TypedLocalObjectReference: "apiGroup=1? kind=2 name=3",
  TypedObjectReference: "apiGroup=1? kind=2 name=3 namespace=4?",
  Event: "metadata=1:ObjectMeta involvedObject=2:ObjectReference reason=3 message=4 " +
    "source=5:EventSource firstTimestamp=6:time lastTimestamp=7:time count=8:int type=9 " +
    "eventTime=10:microtime series=11:EventSeries action=12 related=13:ObjectReference " +
    "reportingComponent=14? reportingInstance=15?",
  EventSource: "component=1 host=2",
  EventSeries: "count=1:int lastObservedTime=2:microtime",
  PersistentVolumeClaim: "metadata=1:ObjectMeta spec=2:PersistentVolumeClaimSpec " +
    "status=3:PersistentVolumeClaimStatus",
  PersistentVolumeClaimSpec: "accessModes=1[] selector=4:LabelSelector " +
    "resources=2:VolumeResourceRequirements volumeName=3 storageClassName=5? volumeMode=6? " +
    "dataSource=7:TypedLocalObjectReference dataSourceRef=8:TypedObjectReference " +
    "volumeAttributesClassName=9?",
  VolumeResourceRequirements: "limits=1:map<quantity> requests=2:map<quantity>",
  PersistentVolumeClaimStatus: "phase=1 accessModes=2[] capacity=3:map<quantity> " +
    "conditions=4:PersistentVolumeClaimCondition[]@type allocatedResources=5:map<quantity> " +
    "allocatedResourceStatuses=7:map currentVolumeAttributesClassName=8? " +
    "modifyVolumeStatus=9:ModifyVolumeStatus",
  PersistentVolumeClaimCondition: "type=1 status=2 lastProbeTime=3:time " +
    "lastTransitionTime=4:time reason=5 message=6",
  ModifyVolumeStatus: "targetVolumeAttributesClassName=1 status=2",
  PersistentVolumeClaimTemplate: "metadata=1:ObjectMeta spec=2:PersistentVolumeClaimSpec",
  Pod: "metadata=1:ObjectMeta spec=2:PodSpec status=3:PodStatus",
  PodTemplateSpec: "metadata=1:ObjectMeta spec=2:PodSpec",
  PodSpec: "volumes=1:Volume[]@name+retainKeys initContainers=20:Container[]@name " +
    "containers=2:Container[]@name ephemeralContainers=34:EphemeralContainer[]@name " +
    "restartPolicy=3 terminationGracePeriodSeconds=4:int? activeDeadlineSeconds=5:int? " +
    "dnsPolicy=6 nodeSelector=7:map serviceAccountName=8 serviceAccount=9 " +
    "automountServiceAccountToken=21:bool? nodeName=10 hostNetwork=11:bool hostPID=12:bool " +
    "hostIPC=13:bool shareProcessNamespace=27:bool? securityContext=14:PodSecurityContext " +
    "imagePullSecrets=15:LocalObjectReference[]@name hostname=16 subdomain=17 " +
    "affinity=18:Affinity schedulerName=19 tolerations=22:Toleration[] " +
    "hostAliases=23:HostAlias[]@ip priorityClassName=24 priority=25:int? " +
    "dnsConfig=26:PodDNSConfig readinessGates=28:PodReadinessGate[] runtimeClassName=29? " +
    "enableServiceLinks=30:bool? preemptionPolicy=31? overhead=32:map<quantity> " +
    "topologySpreadConstraints=33:TopologySpreadConstraint[]@topologyKey " +
    "setHostnameAsFQDN=35:bool? os=36:PodOS hostUsers=37:bool? " +
    "schedulingGates=38:PodSchedulingGate[]@name " +
    "resourceClaims=39:PodResourceClaim[]@name+retainKeys resources=40:ResourceRequirements " +
    "hostnameOverride=41?",
  Container: CONTAINER,
  EphemeralContainer: "...=1:Container targetContainerName=2",
  ContainerPort: "name=1 hostPort=2:int containerPort=3:int protocol=4 hostIP=5",
  ContainerResizePolicy: "resourceName=1 restartPolicy=2",
  ContainerRestartRule: "action=1 exitCodes=2:ContainerRestartRuleOnExitCodes",
  ContainerRestartRuleOnExitCodes: "operator=1 values=2:int[]",
  EnvFromSource: "prefix=1 configMapRef=2:ConfigMapEnvSource secretRef=3:SecretEnvSource",
  ConfigMapEnvSource: `${LOCAL_REF} optional=2:bool?`,
  SecretEnvSource: `${LOCAL_REF} optional=2:bool?`,
  EnvVar: "name=1 value=2 valueFrom=3:EnvVarSource",
  EnvVarSource: "fieldRef=1:ObjectFieldSelector resourceFieldRef=2:ResourceFieldSelector " +
    "configMapKeyRef=3:ConfigMapKeySelector secretKeyRef=4:SecretKeySelector " +
    "fileKeyRef=5:FileKeySelector",
  ObjectFieldSelector: "apiVersion=1 fieldPath=2",
  ResourceFieldSelector: "containerName=1 resource=2 divisor=3:quantity",
  ConfigMapKeySelector: `${LOCAL_REF} key=2 optional=3:bool?`,
  SecretKeySelector: `${LOCAL_REF} key=2 optional=3:bool?`,
  FileKeySelector: "volumeName=1 path=2 key=3 optional=4:bool?",
  ResourceRequirements: "limits=1:map<quantity> requests=2:map<quantity> " +
    "claims=3:ResourceClaim[]",
  ResourceClaim: "name=1 request=2",
  VolumeMount: "name=1 readOnly=2:bool recursiveReadOnly=7? mountPath=3 subPath=4 " +
    "mountPropagation=5? subPathExpr=6",
  VolumeDevice: "name=1 devicePath=2",
  Probe: "...=1:ProbeHandler initialDelaySeconds=2:int timeoutSeconds=3:int periodSeconds=4:int " +
    "successThreshold=5:int failureThreshold=6:int terminationGracePeriodSeconds=7:int?",
  ProbeHandler: "exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction " +
    "grpc=4:GRPCAction",
  ExecAction: "command=1[]",
  HTTPGetAction: "path=1 port=2:intstr host=3 scheme=4 httpHeaders=5:HTTPHeader[]",
  HTTPHeader: "name=1 value=2",
  TCPSocketAction: "port=1:intstr host=2",
  GRPCAction: "port=1:int service=2?",
  Lifecycle: "postStart=1:LifecycleHandler preStop=2:LifecycleHandler stopSignal=3?",
  LifecycleHandler: "exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction " +
    "sleep=4:SleepAction",
  SleepAction: "seconds=1:int",
  SecurityContext: "capabilities=1:Capabilities privileged=2:bool? " +
    "seLinuxOptions=3:SELinuxOptions windowsOptions=10:WindowsSecurityContextOptions " +
    "runAsUser=4:int? runAsGroup=8:int? runAsNonRoot=5:bool? readOnlyRootFilesystem=6:bool? " +
    "allowPrivilegeEscalation=7:bool? procMount=9? seccompProfile=11:SeccompProfile " +
    "appArmorProfile=12:AppArmorProfile ulimits=13:Ulimit[]",
  Ulimit: "name=1 hard=2:int soft=3:int",
  Capabilities: "add=1[] drop=2[]",
  SELinuxOptions: "user=1 role=2 type=3 level=4",
  WindowsSecurityContextOptions: "gmsaCredentialSpecName=1? gmsaCredentialSpec=2? " +
    "runAsUserName=3? hostProcess=4:bool?",
  SeccompProfile: "type=1 localhostProfile=2?",
  AppArmorProfile: "type=1 localhostProfile=2?",
  PodSecurityContext: "seLinuxOptions=1:SELinuxOptions " +
    "windowsOptions=8:WindowsSecurityContextOptions runAsUser=2:int? runAsGroup=6:int? " +
    "runAsNonRoot=3:bool? supplementalGroups=4:int[] supplementalGroupsPolicy=12? " +
    "fsGroup=5:int? sysctls=7:Sysctl[] fsGroupChangePolicy=9? seccompProfile=10:SeccompProfile " +
    "appArmorProfile=11:AppArmorProfile seLinuxChangePolicy=13?",
  Sysctl: "name=1 value=2",
  Affinity: "nodeAffinity=1:NodeAffinity podAffinity=2:PodAffinity " +
    "podAntiAffinity=3:PodAntiAffinity",
  NodeAffinity: "requiredDuringSchedulingIgnoredDuringExecution=1:NodeSelector " +
    "preferredDuringSchedulingIgnoredDuringExecution=2:PreferredSchedulingTerm[]",
  NodeSelector: "nodeSelectorTerms=1:NodeSelectorTerm[]",
  NodeSelectorTerm: "matchExpressions=1:NodeSelectorRequirement[] " +
    "matchFields=2:NodeSelectorRequirement[]",
  NodeSelectorRequirement: "key=1 operator=2 values=3[]",
  PreferredSchedulingTerm: "weight=1:int preference=2:NodeSelectorTerm",
  PodAffinity: "requiredDuringSchedulingIgnoredDuringExecution=1:PodAffinityTerm[] " +
    "preferredDuringSchedulingIgnoredDuringExecution=2:WeightedPodAffinityTerm[]",
  PodAntiAffinity: "requiredDuringSchedulingIgnoredDuringExecution=1:PodAffinityTerm[] " +
    "preferredDuringSchedulingIgnoredDuringExecution=2:WeightedPodAffinityTerm[]",
  PodAffinityTerm: "labelSelector=1:LabelSelector namespaces=2[] topologyKey=3 " +
    "namespaceSelector=4:LabelSelector matchLabelKeys=5[] mismatchLabelKeys=6[]",
  WeightedPodAffinityTerm: "weight=1:int podAffinityTerm=2:PodAffinityTerm",
  Toleration: "key=1 operator=2 value=3 effect=4 tolerationSeconds=5:int?",
  HostAlias: "ip=1 hostnames=2[]",
  PodDNSConfig: "nameservers=1[] searches=2[] options=3:PodDNSConfigOption[]",
  PodDNSConfigOption: "name=1 value=2?",
  PodReadinessGate: "conditionType=1",
  TopologySpreadConstraint: "maxSkew=1:int topologyKey=2 whenUnsatisfiable=3 " +
    "labelSelector=4:LabelSelector minDomains=5:int? nodeAffinityPolicy=6? " +
    "nodeTaintsPolicy=7? matchLabelKeys=8[]",
  PodOS: "name=1",
  PodSchedulingGate: "name=1",
  PodResourceClaim: "name=1 resourceClaimName=3? resourceClaimTemplateName=4?",
  Volume: "name=1 ...=2:VolumeSource",
  VolumeSource: "hostPath=1:HostPathVolumeSource emptyDir=2:EmptyDirVolumeSource " +
    "gcePersistentDisk=3:GCEPersistentDiskVolumeSource " +
    "awsElasticBlockStore=4:AWSElasticBlockStoreVolumeSource gitRepo=5:GitRepoVolumeSource " +
    "secret=6:SecretVolumeSource nfs=7:NFSVolumeSource iscsi=8:ISCSIVolumeSource " +
    "glusterfs=9:GlusterfsVolumeSource " +
    "persistentVolumeClaim=10:PersistentVolumeClaimVolumeSource rbd=11:RBDVolumeSource " +
    "flexVolume=12:FlexVolumeSource cinder=13:CinderVolumeSource cephfs=14:CephFSVolumeSource " +
    "flocker=15:FlockerVolumeSource downwardAPI=16:DownwardAPIVolumeSource fc=17:FCVolumeSource " +
    "azureFile=18:AzureFileVolumeSource configMap=19:ConfigMapVolumeSource " +
    "vsphereVolume=20:VsphereVirtualDiskVolumeSource quobyte=21:QuobyteVolumeSource " +
    "azureDisk=22:AzureDiskVolumeSource " +
    "photonPersistentDisk=23:PhotonPersistentDiskVolumeSource " +
    "projected=26:ProjectedVolumeSource portworxVolume=24:PortworxVolumeSource " +
    "scaleIO=25:ScaleIOVolumeSource storageos=27:StorageOSVolumeSource csi=28:CSIVolumeSource " +
    "ephemeral=29:EphemeralVolumeSource image=30:ImageVolumeSource",
  HostPathVolumeSource: "path=1 type=2?",
  EmptyDirVolumeSource: "medium=1 sizeLimit=2:quantity",
  SecretVolumeSource: "secretName=1 items=2:KeyToPath[] defaultMode=3:int? optional=4:bool?",
  ConfigMapVolumeSource: `${LOCAL_REF} items=2:KeyToPath[] defaultMode=3:int? optional=4:bool?`,
  KeyToPath: "key=1 path=2 mode=3:int?",
  NFSVolumeSource: "server=1 path=2 readOnly=3:bool",
  PersistentVolumeClaimVolumeSource: "claimName=1 readOnly=2:bool",
  DownwardAPIVolumeSource: "items=1:DownwardAPIVolumeFile[] defaultMode=2:int?",
  DownwardAPIVolumeFile: "path=1 fieldRef=2:ObjectFieldSelector " +
    "resourceFieldRef=3:ResourceFieldSelector mode=4:int?",
  ProjectedVolumeSource: "sources=1:VolumeProjection[] defaultMode=2:int?",
  VolumeProjection: "secret=1:SecretProjection downwardAPI=2:DownwardAPIProjection " +
    "configMap=3:ConfigMapProjection serviceAccountToken=4:ServiceAccountTokenProjection " +
    "clusterTrustBundle=5:ClusterTrustBundleProjection podCertificate=6:PodCertificateProjection",
  SecretProjection: `${LOCAL_REF} items=2:KeyToPath[] optional=4:bool?`,
  ConfigMapProjection: `${LOCAL_REF} items=2:KeyToPath[] optional=4:bool?`,
  DownwardAPIProjection: "items=1:DownwardAPIVolumeFile[]",
  ServiceAccountTokenProjection: "audience=1 expirationSeconds=2:int? path=3",
  ClusterTrustBundleProjection: "name=1? signerName=2? labelSelector=3:LabelSelector " +
    "optional=5:bool? path=4",
  PodCertificateProjection: "signerName=1 keyType=2 maxExpirationSeconds=3:int? " +
    "credentialBundlePath=4 keyPath=5 certificateChainPath=6 userAnnotations=7:map",
  CSIVolumeSource: "driver=1 readOnly=2:bool? fsType=3? volumeAttributes=4:map " +
    "nodePublishSecretRef=5:LocalObjectReference",
  EphemeralVolumeSource: "volumeClaimTemplate=1:PersistentVolumeClaimTemplate",
  ImageVolumeSource: "reference=1 pullPolicy=2",
  GitRepoVolumeSource: "repository=1 revision=2 directory=3",
  GCEPersistentDiskVolumeSource: "pdName=1 fsType=2 partition=3:int readOnly=4:bool",
  AWSElasticBlockStoreVolumeSource: "volumeID=1 fsType=2 partition=3:int readOnly=4:bool",
  ISCSIVolumeSource: "targetPortal=1 iqn=2 lun=3:int iscsiInterface=4 fsType=5 " +
    "readOnly=6:bool portals=7[] chapAuthDiscovery=8:bool chapAuthSession=11:bool " +
    "secretRef=10:LocalObjectReference initiatorName=12?",
  GlusterfsVolumeSource: "endpoints=1 path=2 readOnly=3:bool",
  RBDVolumeSource: "monitors=1[] image=2 fsType=3 pool=4 user=5 keyring=6 " +
    "secretRef=7:LocalObjectReference readOnly=8:bool",
  FlexVolumeSource: "driver=1 fsType=2 secretRef=3:LocalObjectReference readOnly=4:bool " +
    "options=5:map",
  CinderVolumeSource: "volumeID=1 fsType=2 readOnly=3:bool secretRef=4:LocalObjectReference",
  CephFSVolumeSource: "monitors=1[] path=2 user=3 secretFile=4 " +
    "secretRef=5:LocalObjectReference readOnly=6:bool",
  FlockerVolumeSource: "datasetName=1 datasetUUID=2",
  FCVolumeSource: "targetWWNs=1[] lun=2:int? fsType=3 readOnly=4:bool wwids=5[]",
  AzureFileVolumeSource: "secretName=1 shareName=2 readOnly=3:bool",
  VsphereVirtualDiskVolumeSource: "volumePath=1 fsType=2 storagePolicyName=3 " +
    "storagePolicyID=4",
  QuobyteVolumeSource: "registry=1 volume=2 readOnly=3:bool user=4 group=5 tenant=6",
  AzureDiskVolumeSource: "diskName=1 diskURI=2 cachingMode=3? fsType=4? readOnly=5:bool? " +
    "kind=6?",
  PhotonPersistentDiskVolumeSource: "pdID=1 fsType=2",
  PortworxVolumeSource: "volumeID=1 fsType=2 readOnly=3:bool",
  ScaleIOVolumeSource: "gateway=1 system=2 secretRef=3:LocalObjectReference sslEnabled=4:bool " +
    "protectionDomain=5 storagePool=6 storageMode=7 volumeName=8 fsType=9 readOnly=10:bool",
  StorageOSVolumeSource: "volumeName=1 volumeNamespace=2 fsType=3 readOnly=4:bool " +
    "secretRef=5:LocalObjectReference",
  PodStatus: "observedGeneration=17:int phase=1 conditions=2:PodCondition[]@type message=3 " +
    "reason=4 nominatedNodeName=11 hostIP=5 hostIPs=16:HostIP[]@ip podIP=6 " +
    "podIPs=12:PodIP[]@ip startTime=7:time initContainerStatuses=10:ContainerStatus[] " +
    "containerStatuses=8:ContainerStatus[] qosClass=9 " +
    "ephemeralContainerStatuses=13:ContainerStatus[] resize=14 " +
    "resourceClaimStatuses=15:PodResourceClaimStatus[]@name+retainKeys " +
    "allocatedResources=19:map<quantity> resources=20:ResourceRequirements",
  PodCondition: "type=1 observedGeneration=7:int status=2 lastProbeTime=3:time " +
    "lastTransitionTime=4:time reason=5 message=6",
  HostIP: "ip=1",
  PodIP: "ip=1",
  PodResourceClaimStatus: "name=1 resourceClaimName=2?",
  ContainerStatus: "name=1 state=2:ContainerState lastState=3:ContainerState ready=4:bool " +
    "restartCount=5:int image=6 imageID=7 containerID=8 started=9:bool? " +
    "allocatedResources=10:map<quantity> resources=11:ResourceRequirements stopSignal=15?",
  ContainerState: "waiting=1:ContainerStateWaiting running=2:ContainerStateRunning " +
    "terminated=3:ContainerStateTerminated",
  ContainerStateWaiting: "reason=1 message=2",
  ContainerStateRunning: "startedAt=1:time",
  ContainerStateTerminated: "exitCode=1:int signal=2:int reason=3 message=4 startedAt=5:time " +
    "finishedAt=6:time containerID=7",
  Service: "metadata=1:ObjectMeta spec=2:ServiceSpec status=3:ServiceStatus",
  ServiceSpec: "ports=1:ServicePort[]@port selector=2:map clusterIP=3 clusterIPs=18[] type=4 " +
    "externalIPs=5[] sessionAffinity=7 loadBalancerIP=8 loadBalancerSourceRanges=9[] " +
    "externalName=10 externalTrafficPolicy=11 healthCheckNodePort=12:int " +
    "publishNotReadyAddresses=13:bool sessionAffinityConfig=14:SessionAffinityConfig " +
    "ipFamilies=19[] ipFamilyPolicy=17? allocateLoadBalancerNodePorts=20:bool? " +
    "loadBalancerClass=21? internalTrafficPolicy=22? trafficDistribution=23?",
  ServicePort: "name=1 protocol=2 appProtocol=6? port=3:int targetPort=4:intstr nodePort=5:int",
  SessionAffinityConfig: "clientIP=1:ClientIPConfig",
  ClientIPConfig: "timeoutSeconds=1:int?",
  ServiceStatus: "loadBalancer=1:LoadBalancerStatus conditions=2:Condition[]@type",
  LoadBalancerStatus: "ingress=1:LoadBalancerIngress[]",
  LoadBalancerIngress: "ip=1 hostname=2 ipMode=3? ports=4:PortStatus[]",
  PortStatus: "port=1:int protocol=2 error=3?",
};

/**
 * The review kinds and `TokenRequest`, as clients send them (kubectl sends protobuf,
 * with an empty `status`; `extra` fields of users are not described).
 */
const AUTHORIZATION: Record<string, string> = {
  SelfSubjectAccessReview: "metadata=1:ObjectMeta spec=2:SelfSubjectAccessReviewSpec " +
    "status=3:SubjectAccessReviewStatus",
  SelfSubjectAccessReviewSpec:
    "resourceAttributes=1:ResourceAttributes nonResourceAttributes=2:NonResourceAttributes",
  ResourceAttributes: "namespace=1 verb=2 group=3 version=4 resource=5 subresource=6 name=7 " +
    "fieldSelector=8:FieldSelectorAttributes labelSelector=9:LabelSelectorAttributes",
  FieldSelectorAttributes: "rawSelector=1 requirements=2:FieldSelectorRequirement[]",
  FieldSelectorRequirement: "key=1 operator=2 values=3[]",
  LabelSelectorAttributes: "rawSelector=1 requirements=2:LabelSelectorRequirement[]",
  NonResourceAttributes: "path=1 verb=2",
  SubjectAccessReview: "metadata=1:ObjectMeta spec=2:SubjectAccessReviewSpec " +
    "status=3:SubjectAccessReviewStatus",
  LocalSubjectAccessReview: "metadata=1:ObjectMeta spec=2:SubjectAccessReviewSpec " +
    "status=3:SubjectAccessReviewStatus",
  SubjectAccessReviewSpec: "resourceAttributes=1:ResourceAttributes " +
    "nonResourceAttributes=2:NonResourceAttributes user=3 groups=4[] uid=6",
  SubjectAccessReviewStatus: "allowed=1:bool denied=4:bool reason=2 evaluationError=3",
  SelfSubjectRulesReview: "metadata=1:ObjectMeta spec=2:SelfSubjectRulesReviewSpec " +
    "status=3:SubjectRulesReviewStatus",
  SelfSubjectRulesReviewSpec: "namespace=1",
  SubjectRulesReviewStatus: "resourceRules=1:ResourceRule[] nonResourceRules=2:NonResourceRule[] " +
    "incomplete=3:bool evaluationError=4",
  ResourceRule: "verbs=1[] apiGroups=2[] resources=3[] resourceNames=4[]",
  NonResourceRule: "verbs=1[] nonResourceURLs=2[]",
};

const AUTHENTICATION: Record<string, string> = {
  TokenRequest: "metadata=1:ObjectMeta spec=2:TokenRequestSpec status=3:TokenRequestStatus",
  TokenRequestSpec: "audiences=1[] expirationSeconds=4:int? boundObjectRef=3:BoundObjectReference",
  BoundObjectReference: "kind=1 apiVersion=2 name=3 uid=4",
  TokenRequestStatus: "token=1 expirationTimestamp=2:time",
  TokenReview: "metadata=1:ObjectMeta spec=2:TokenReviewSpec status=3:TokenReviewStatus",
  TokenReviewSpec: "token=1 audiences=2[]",
  TokenReviewStatus: "authenticated=1:bool user=2:UserInfo error=3 audiences=4[]",
  UserInfo: "username=1 uid=2 groups=3[]",
  SelfSubjectReview: "metadata=1:ObjectMeta status=2:SelfSubjectReviewStatus",
  SelfSubjectReviewStatus: "userInfo=1:UserInfo",
};

/** Where each table's messages live, by their OpenAPI definition prefix. */
const PACKAGES: Record<string, Record<string, string>> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1": META,
  "io.k8s.api.core.v1": CORE,
  "io.k8s.api.apps.v1": APPS,
  "io.k8s.api.batch.v1": BATCH,
  "io.k8s.api.rbac.v1": RBAC,
  "io.k8s.api.authorization.v1": AUTHORIZATION,
  "io.k8s.api.authentication.v1": AUTHENTICATION,
};

/** The kinds whose objects the tables describe whole, by `apiVersion/kind`. */
const KINDS: Record<string, string[]> = {
  "v1": [
    "Namespace",
    "ConfigMap",
    "Secret",
    "ServiceAccount",
    "Pod",
    "Service",
    "PersistentVolumeClaim",
    "Event",
  ],
  "apps/v1": ["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"],
  "batch/v1": ["Job", "CronJob"],
  "rbac.authorization.k8s.io/v1": ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"],
  "authorization.k8s.io/v1": [
    "SelfSubjectAccessReview",
    "SubjectAccessReview",
    "LocalSubjectAccessReview",
    "SelfSubjectRulesReview",
  ],
  "authentication.k8s.io/v1": ["TokenRequest", "TokenReview", "SelfSubjectReview"],
};

/** The scalar and well-known types a field can have besides a message. */
export type ScalarType =
  | "string"
  | "int"
  | "bool"
  | "bytes"
  | "time"
  | "microtime"
  | "quantity"
  | "intstr"
  | "fieldsV1";

/** One field of a message, parsed from its table. */
export interface MessageField {
  /** The JSON name; empty for an inline (embedded) message. */
  readonly name: string;
  /** The protobuf field number. */
  readonly number: number;
  /** A scalar type, a map of one, or a message name. */
  readonly type: ScalarType | `map<${"string" | "bytes" | "quantity"}>` | string;
  /** Whether the field is a message (the type then names it). */
  readonly message: boolean;
  /** Whether the field is a list. */
  readonly repeated: boolean;
  /** Whether a zero value is meaningful (a Go pointer) and so kept. */
  readonly keepZero: boolean;
  /** The strategic merge key of a list of objects; `""` for a set of scalars. */
  readonly mergeKey?: string;
  /** Whether the field has the `retainKeys` patch strategy. */
  readonly retainKeys: boolean;
}

/** A parsed message: its fields by number and by JSON name, inline ones expanded. */
export interface Message {
  /** The message's name, e.g. `PodSpec`. */
  readonly name: string;
  /** The OpenAPI definition name, e.g. `io.k8s.api.core.v1.PodSpec`. */
  readonly definition: string;
  /** The fields as declared (an inline message is one field with an empty name). */
  readonly fields: readonly MessageField[];
  /** The fields by protobuf number. */
  readonly byNumber: ReadonlyMap<number, MessageField>;
  /** The JSON fields by name, those of inline messages included. */
  readonly byName: ReadonlyMap<string, MessageField>;
}

const SCALARS = new Set([
  "string",
  "int",
  "bool",
  "bytes",
  "time",
  "microtime",
  "quantity",
  "intstr",
  "fieldsV1",
  "map",
  "map<bytes>",
  "map<quantity>",
]);

const TOKEN =
  /^(\.\.\.|[A-Za-z]\w*)=(\d+)(?::([A-Za-z][\w<>]*))?(\[\])?(\?)?(?:@(\w*))?(\+retainKeys)?$/;

function parseField(token: string, where: string): MessageField {
  const match = TOKEN.exec(token);
  if (!match) throw new Error(`builtin_messages: bad field "${token}" in ${where}`);
  const [, name, number, type = "string", list, pointer, mergeKey, retain] = match;
  const canonical = type === "map" ? "map<string>" : type;
  return {
    name: name === "..." ? "" : name,
    number: Number(number),
    type: canonical,
    message: !SCALARS.has(type),
    repeated: list !== undefined,
    keepZero: pointer !== undefined,
    mergeKey,
    retainKeys: retain !== undefined,
  };
}

const messages = new Map<string, Message>();
for (const [pkg, table] of Object.entries(PACKAGES)) {
  for (const [name, line] of Object.entries(table)) {
    const fields = line.split(/\s+/).filter(Boolean).map((t) => parseField(t, name));
    messages.set(name, {
      name,
      definition: `${pkg}.${name}`,
      fields,
      byNumber: new Map(fields.map((f) => [f.number, f])),
      byName: new Map(),
    });
  }
}
// Inline messages lend their JSON fields to the message embedding them.
function collectNames(message: Message, into: Map<string, MessageField>): void {
  for (const field of message.fields) {
    if (field.name) into.set(field.name, field);
    else collectNames(messageNamed(field.type), into);
  }
}
// A typo in a table would decode garbage silently: refuse it when the module loads.
for (const message of messages.values()) {
  if (message.byNumber.size !== message.fields.length) {
    throw new Error(`builtin_messages: ${message.name} uses a field number twice`);
  }
  for (const field of message.fields) {
    if (field.message && !messages.has(field.type)) {
      throw new Error(`builtin_messages: ${message.name} refers to unknown ${field.type}`);
    }
  }
}
for (const message of messages.values()) {
  collectNames(message, message.byName as Map<string, MessageField>);
}

/** The message of this name; throws for a name no table declares (a bug here). */
export function messageNamed(name: string): Message {
  const message = messages.get(name);
  if (!message) throw new Error(`builtin_messages: no message ${name}`);
  return message;
}

/** The message of a kind the tables describe, e.g. `("apps/v1", "Deployment")`. */
export function kindMessage(apiVersion: string, kind: string): Message | undefined {
  return KINDS[apiVersion]?.includes(kind) ? messages.get(kind) : undefined;
}

import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  BackupPlan,
  BackupPlanRule,
  BackupResource,
  BackupVault,
  type IBackupVault,
} from 'aws-cdk-lib/aws-backup';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IDatabaseCluster } from 'aws-cdk-lib/aws-rds';
import { Construct } from 'constructs';

export interface BackupsProps {
  readonly table: ITableV2;
  /** The Aurora cluster, when the stack has a data plane. */
  readonly cluster?: IDatabaseCluster;
  /** How long each recovery point is kept, in both vaults: the stage's backupRetentionDays. */
  readonly retentionDays: number;
  /**
   * The vault each recovery point is copied to (`backupCopyVaultArn`): another account's, so that a compromised or
   * closed platform account does not take the backups with it. Default: a second vault in this stack (another
   * key, another vault, the same account: an accidental deletion of one vault leaves the other).
   */
  readonly copyVaultArn?: string;
}

/**
 * AWS Backup for a protected stage (docs/deploying.md, "Backups and restoring"): one daily recovery point of the
 * control-plane table and the Aurora cluster together, at the same time (a restore of both to one moment), kept
 * backupRetentionDays, and copied to a second vault. The stores' own point-in-time recovery (the same number of
 * days) stays the first means of restoring; the vault copies are what is left if the account or a store is lost.
 */
export class Backups extends Construct {
  readonly vault: BackupVault;
  readonly copyVault: IBackupVault;
  readonly plan: BackupPlan;

  constructor(scope: Construct, id: string, props: BackupsProps) {
    super(scope, id);
    const vaultKey = (name: string) =>
      new Key(this, `${name}Key`, {
        description: `Encrypts the platform's ${name.toLowerCase()} backup vault`,
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    this.vault = new BackupVault(this, 'Vault', {
      encryptionKey: vaultKey('Primary'),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.copyVault = props.copyVaultArn
      ? BackupVault.fromBackupVaultArn(this, 'CopyVault', props.copyVaultArn)
      : new BackupVault(this, 'CopyVault', {
          encryptionKey: vaultKey('Copy'),
          removalPolicy: RemovalPolicy.RETAIN,
        });
    const keep = Duration.days(props.retentionDays);
    this.plan = new BackupPlan(this, 'Plan', {
      backupVault: this.vault,
      backupPlanRules: [
        new BackupPlanRule({
          ruleName: 'Daily',
          // 03:00 UTC: one moment for both stores.
          scheduleExpression: Schedule.cron({ minute: '0', hour: '3' }),
          startWindow: Duration.hours(1),
          completionWindow: Duration.hours(4),
          deleteAfter: keep,
          copyActions: [{ destinationBackupVault: this.copyVault, deleteAfter: keep }],
        }),
      ],
    });
    const selection = this.plan.addSelection('Stores', {
      resources: [
        BackupResource.fromArn(props.table.tableArn),
        ...(props.cluster ? [BackupResource.fromRdsDatabaseCluster(props.cluster)] : []),
      ],
    });
    Validations.of(selection).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      reason:
        "AWS Backup's own service policy for its selection role: AWS keeps it current with what each resource " +
        "type's backup needs (DynamoDB, Aurora, the copy to another vault); the role is AWS Backup's alone.",
    });
  }
}

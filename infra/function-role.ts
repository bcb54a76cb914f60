import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * The execution role of one group's function, instead of the AWS managed Lambda policies: those let a function
 * create any log group and write to every log group of the account. This role writes to its own log group only;
 * a function in the VPC may also manage its network interfaces.
 */
export function functionRole(scope: Construct, id: string, logGroup: ILogGroup, inVpc: boolean): Role {
  const role = new Role(scope, id, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  role.addToPolicy(
    new PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  if (inVpc) {
    // EC2 offers no resource-level permissions for Describe*, and Lambda manages the function's network interfaces
    // in whichever subnet it picks: the same actions as AWSLambdaVPCAccessExecutionRole, which also uses `*`.
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: [
          'ec2:CreateNetworkInterface',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DescribeSubnets',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        resources: ['*'],
      }),
    );
  }
  return role;
}

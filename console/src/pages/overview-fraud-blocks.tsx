import { useClient } from '../api/context';
import { listFraudBlocks, liftFraudBlock, type FraudBlock } from '../api/fraud-blocks';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When } from '../components/status';

const REASONS: Record<FraudBlock['reason'], string> = {
  low_conversion: 'few codes verified',
  velocity: 'too many new numbers',
  many_accounts: 'blocked in many accounts',
};

/**
 * Number prefixes the fraud guard blocked for verification codes; the owner lifts the account's own.
 * Hidden when the list is not for this key (member key: 403) or the service has no such route (404).
 */
export function FraudBlocksSection() {
  const client = useClient();
  const pager = useCursor('fraud-blocks');
  const page = useApi(() => listFraudBlocks(client, pager.cursor), `fraud-blocks:${pager.cursor ?? ''}`);
  const lift = useAction(async (id: string) => {
    await liftFraudBlock(client, id);
    page.reload();
  });
  if (page.data === null) return null;
  if (!page.data && !page.error) return null;
  return (
    <Section title="Fraud blocks" id="fraud-blocks">
      <ErrorBox error={page.error ?? lift.error} />
      {page.data && page.data.blocks.length === 0 && <Empty>No number prefix is blocked.</Empty>}
      {page.data && page.data.blocks.length > 0 && (
        <>
          <TableBox label="Fraud blocks">
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Reason</th>
                <th scope="col">Sent / verified</th>
                <th scope="col">Since</th>
                <th scope="col">Until</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.blocks.map((b) => (
                <tr key={b.id}>
                  <td className="mono">{b.prefix}</td>
                  <td>{`${REASONS[b.reason] ?? b.reason}${b.scope === 'platform' ? ' (platform)' : ''}`}</td>
                  <td>{`${b.sends} / ${b.verified}`}</td>
                  <td>
                    <When at={b.since} />
                  </td>
                  <td>
                    <When at={b.until} />
                  </td>
                  <td>
                    <Status value={b.active ? 'active' : (b.endReason ?? 'expired')} />
                  </td>
                  <td>
                    {b.active && b.scope === 'account' && (
                      <button
                        type="button"
                        disabled={lift.busy}
                        onClick={() => void lift.run(b.id)}
                        aria-label={`Lift the block on ${b.prefix}`}
                      >
                        Lift
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableBox>
          <Pager pager={pager} nextCursor={page.data.nextCursor} label="Fraud blocks" />
        </>
      )}
    </Section>
  );
}

import { FormEvent, useState } from 'react';
import { useAdmin } from '../api/context';
import { unwrap } from '../api/failure';
import type { AdminSchemas } from '../api/admin';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { OperatorTabs } from '../components/operator-tabs';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { ShownOnce } from '../components/secret';
import { money, When } from '../components/status';

type Account = AdminSchemas['AdminAccountResource'];

/** Amounts are typed in currency units (12.50) and sent in integer minor units (1250). */
function toMinor(v: FormDataEntryValue | null): number {
  return Math.round(Number(String(v ?? '0').trim() || '0') * 100);
}

function CreateAccount({ onCreated }: { onCreated(): void }) {
  const admin = useAdmin();
  const create = useAction(
    async (body: AdminSchemas['CreateAccountDto']) => (await unwrap(admin.POST('/admin/v1/accounts', { body }))).data,
  );
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const plan = String(f.get('planName') ?? '').trim();
    const body: AdminSchemas['CreateAccountDto'] = {
      name: String(f.get('name') ?? '').trim(),
      walletBalance: toMinor(f.get('wallet')),
      freeMessages: Number(f.get('freeMessages') || 0),
      planName: plan || undefined,
      messageQuota: Number(f.get('messageQuota') || 0),
      phoneVerified: f.get('phoneVerified') === 'on',
      subscriptionActive: f.get('subscriptionActive') === 'on',
    };
    if (await create.run(body)) {
      form.reset();
      onCreated();
    }
  };
  return (
    <Section title="Create an account">
      <form className="stack" onSubmit={(e) => void submit(e)} aria-label="Create an account">
        <div className="form-grid">
          <div>
            <label htmlFor="a-name">Name</label>
            <input id="a-name" name="name" required maxLength={200} />
          </div>
          <div>
            <label htmlFor="a-wallet">Wallet balance</label>
            <input id="a-wallet" name="wallet" type="number" min={0} step="0.01" defaultValue="0" />
          </div>
          <div>
            <label htmlFor="a-free">Free messages</label>
            <input id="a-free" name="freeMessages" type="number" min={0} step={1} defaultValue="0" />
          </div>
          <div>
            <label htmlFor="a-plan">Plan name</label>
            <input id="a-plan" name="planName" maxLength={100} />
          </div>
          <div>
            <label htmlFor="a-quota">Plan quota (messages)</label>
            <input id="a-quota" name="messageQuota" type="number" min={0} step={1} defaultValue="0" />
          </div>
          <div className="checks">
            <label>
              <input type="checkbox" name="phoneVerified" defaultChecked /> Phone verified
            </label>
            <label>
              <input type="checkbox" name="subscriptionActive" defaultChecked /> Subscription active
            </label>
          </div>
        </div>
        <ErrorBox error={create.error} />
        {create.result && (
          <>
            <p className="notice" role="status">
              Created <strong>{create.result.account.name}</strong> (<code>{create.result.account.id}</code>).
            </p>
            <ShownOnce label="Owner API key" value={create.result.apiKey.key} />
          </>
        )}
        <div>
          <button type="submit" className="primary" disabled={create.busy}>
            Create account
          </button>
        </div>
      </form>
    </Section>
  );
}

function TopUp({ account, onDone }: { account: Account; onDone(): void }) {
  const admin = useAdmin();
  const topUp = useAction(
    async (amount: number) =>
      (
        await unwrap(
          admin.POST('/admin/v1/accounts/{id}/top-up', { params: { path: { id: account.id } }, body: { amount } }),
        )
      ).data.account,
  );
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (await topUp.run(toMinor(new FormData(e.currentTarget).get('amount')))) onDone();
  };
  return (
    <form className="row" onSubmit={(e) => void submit(e)} aria-label={`Top up ${account.name}`}>
      <label htmlFor="top-up-amount">
        Top up {account.name} by ({account.currency})
      </label>
      <input id="top-up-amount" name="amount" type="number" min="0.01" step="0.01" required autoFocus />
      <button type="submit" className="primary" disabled={topUp.busy}>
        Add to wallet
      </button>
      <ErrorBox error={topUp.error} />
    </form>
  );
}

/** Operator: every account (paged), create one, top up a wallet. */
export function OperatorAccountsPage() {
  const admin = useAdmin();
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<Account | null>(null);
  const pager = useCursor('accounts');
  const list = useApi(
    async () =>
      (await unwrap(admin.GET('/admin/v1/accounts', { params: { query: { limit: 20, cursor: pager.cursor } } }))).data,
    `${pager.cursor}|${version}`,
  );
  const refresh = () => setVersion((v) => v + 1);
  return (
    <Page title="Operator: accounts">
      <OperatorTabs />
      <CreateAccount onCreated={refresh} />
      <Section title="Accounts">
        <ErrorBox error={list.error} />
        {list.data && list.data.accounts.length === 0 && <Empty>No accounts.</Empty>}
        {list.data && list.data.accounts.length > 0 && (
          <TableBox label="Accounts">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Wallet</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
                <th scope="col">Plan</th>
                <th scope="col">Free</th>
                <th scope="col">Subscription</th>
                <th scope="col">Id</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.accounts.map((a) => (
                <tr key={a.id}>
                  <td>{a.name}</td>
                  <td data-testid={`wallet-${a.id}`}>{money(a.walletBalance, a.currency)}</td>
                  <td>
                    <button type="button" onClick={() => setSelected(a)} aria-label={`Top up ${a.name}`}>
                      Top up
                    </button>
                  </td>
                  <td>{a.plan?.name ? `${a.plan.name} (${a.plan.messagesUsed}/${a.plan.messageQuota})` : '-'}</td>
                  <td>{a.freeMessages}</td>
                  <td>{a.subscriptionActive ? 'active' : 'inactive'}</td>
                  <td className="mono small">{a.id}</td>
                  <td>
                    <When at={a.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        )}
        <Pager pager={pager} nextCursor={list.data?.nextCursor} label="Accounts" />
        {selected && (
          <TopUp
            key={selected.id}
            account={selected}
            onDone={() => {
              setSelected(null);
              refresh();
            }}
          />
        )}
      </Section>
    </Page>
  );
}
